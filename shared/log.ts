import { config } from '#shared/config.ts';
import { type RequestFacts, requestMetrics } from '#shared/metrics.ts';

const levels = { silent: 0, error: 1, info: 2, debug: 3 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

/** In Lambda each line is written at once: a container frozen after its answer holds none back. */
let write = (line: string): void => {
  process.stdout.write(line);
};

/** One JSON line per event: request id, route, sizes and timings. Never whole events or bodies. */
export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] > levels[config.LOG_LEVEL]) return;
  write(`${JSON.stringify({ level, message, time: new Date().toISOString(), ...fields })}\n`);
}

/** What the request line says: who asked for what, how it ended, sizes and timings. */
export interface RequestLine extends RequestFacts {
  requestId: string;
  downloadMs?: number | undefined;
  uploadMs?: number | undefined;
}

/**
 * The one line per request, which is also its metrics: CloudWatch reads the embedded metric format
 * from the line itself, so measuring a request costs no call and no line of its own.
 */
export function logRequest(line: RequestLine): void {
  if (levels.info > levels[config.LOG_LEVEL]) return;
  log('info', 'request', { ...line, ...requestMetrics(line) });
}

/**
 * Hands every line to `to` instead of writing it: a worker process of the local gateway sends its
 * lines to the gateway with its answer, as Lambda's runtime hands a function's output to its log.
 */
export function redirectLogLines(to: (line: string) => void): void {
  write = to;
}

/** Writes lines another process logged (a worker's) as this process writes its own. */
export function writeLogLines(lines: string): void {
  write(lines);
}

/**
 * For a process that serves many requests at once (the local gateway): the lines of one turn of
 * the event loop are written together when it ends, one write instead of one per request, and
 * whatever is left is written when the process exits.
 */
export function batchLogLines(): void {
  let pending = '';
  const flush = () => {
    const lines = pending;
    pending = '';
    if (lines) process.stdout.write(lines);
  };
  write = (line) => {
    if (!pending) setImmediate(flush);
    pending += line;
  };
  process.once('exit', flush);
}
