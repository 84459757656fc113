import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The stages of a request that explain where its time went: fetching the source, the route's own
 * work, and sending or storing the result. Each stage's time is added up for the request's log
 * line (and its metrics); where a tracer is installed (X-Ray in Lambda, see shared/xray.ts) each
 * stage is also a trace subsegment. Only functions that download install one, so the text
 * functions neither load nor bundle a tracer.
 */
export type StageName = 'download' | 'engine' | 'upload';

/** Milliseconds spent in each stage by one request or job. */
export type StageTimes = Partial<Record<StageName, number>>;

export interface StageTracer {
  /** Runs `work` inside a subsegment that is the current one while it runs. */
  run<T>(name: StageName, work: () => Promise<T>): Promise<T>;
  /** Opens a subsegment that ends when the returned function is called. */
  open(name: StageName): (error?: unknown) => void;
}

const timesOfRequest = new AsyncLocalStorage<StageTimes>();
let tracerLoading: Promise<StageTracer | undefined> | undefined;
let tracer: StageTracer | undefined;

/** Installs the container's tracer (once): stages started after it is loaded are traced. */
export function installStageTracer(loading: Promise<StageTracer | undefined>): void {
  tracerLoading ??= loading.then(
    (loaded) => {
      tracer = loaded;
      return loaded;
    },
    () => undefined,
  );
}

/** Runs a request's work with `times` as the record that its stages add to. */
export function measureStages<T>(times: StageTimes, work: () => T): T {
  return timesOfRequest.run(times, work);
}

function add(times: StageTimes | undefined, name: StageName, since: number): void {
  if (times) times[name] = (times[name] ?? 0) + (performance.now() - since);
}

/** Runs one stage of the current request: timed, and traced where a tracer is installed. */
export async function stage<T>(name: StageName, work: () => Promise<T> | T): Promise<T> {
  const times = timesOfRequest.getStore();
  const active = tracer ?? (tracerLoading ? await tracerLoading : undefined);
  const started = performance.now();
  try {
    return active ? await active.run(name, async () => work()) : await work();
  } finally {
    add(times, name, started);
  }
}

/**
 * Starts a stage that ends later, outside the call that starts it (a streamed answer ends when its
 * last byte is sent); the returned function ends it.
 */
export function openStage(name: StageName, times: StageTimes): () => void {
  const started = performance.now();
  const close = tracer?.open(name);
  return () => {
    add(times, name, started);
    close?.();
  };
}

/** The log line's view of the stages: whole milliseconds, and the engine without its downloads. */
export function stageFields(times: StageTimes): {
  engineMs?: number;
  downloadMs?: number;
  uploadMs?: number;
} {
  const round = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms));
  const engine = times.engine === undefined ? undefined : Math.max(0, times.engine - (times.download ?? 0));
  return {
    ...(engine === undefined ? {} : { engineMs: round(engine) }),
    ...(times.download === undefined ? {} : { downloadMs: round(times.download) }),
    ...(times.upload === undefined ? {} : { uploadMs: round(times.upload) }),
  };
}
