import type { APIGatewayProxyEvent } from 'aws-lambda';
import { log } from '#shared/log.ts';
import type { InvokeResult } from './invoke.ts';
import { InvocationEnded, WorkerProcess } from './worker-process.ts';

/** A function's memory size and timeout, as the CDK stack gives them (the route table's rows). */
export interface WorkerSizing {
  memoryMiB: number;
  timeoutSeconds: number;
}

export interface PoolOptions {
  /** Most worker processes one function runs at once; more calls wait for one to be free. */
  maxWorkersPerFunction?: number;
  /** An idle worker is ended after this long without work. */
  idleMs?: number;
  /** Most idle workers kept warm across all functions; the least recently used goes first. */
  maxIdleWorkers?: number;
  /** How often the memory of busy workers is read. */
  memoryWatchMs?: number;
}

export interface InvokeOptions {
  timeoutMs: number;
  /** Aborted when the caller is gone: the work is stopped with its worker. */
  signal?: AbortSignal;
}

/** How long a new worker may take to load its handler before the call is answered as timed out. */
const INIT_LIMIT_MS = 120_000;

interface Waiter {
  grant(worker: WorkerProcess): void;
  cancelled: boolean;
}

/**
 * The execution environments of the local gateway, as Lambda keeps them: per function a pool of
 * worker processes, each running one invocation at a time and reused while warm. A worker is
 * ended when its invocation passes the timeout, when it and its child processes pass the memory
 * size, when the caller leaves, and after a while idle.
 */
export class WorkerPools {
  readonly #sizing: (functionName: string) => WorkerSizing;
  readonly #options: Required<PoolOptions>;
  readonly #workers = new Map<string, Set<WorkerProcess>>();
  readonly #idle = new Map<string, WorkerProcess[]>();
  readonly #waiting = new Map<string, Waiter[]>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #watch: NodeJS.Timeout;
  #closed = false;

  constructor(sizing: (functionName: string) => WorkerSizing, options: PoolOptions = {}) {
    this.#sizing = sizing;
    this.#options = {
      maxWorkersPerFunction: options.maxWorkersPerFunction ?? 4,
      idleMs: options.idleMs ?? 60_000,
      maxIdleWorkers: options.maxIdleWorkers ?? 8,
      memoryWatchMs: options.memoryWatchMs ?? 100,
    };
    this.#watch = setInterval(() => this.#watchWorkers(), this.#options.memoryWatchMs).unref();
  }

  /** Runs one invocation of the function in a worker of its own and hands back its answer. */
  async invoke(
    functionName: string,
    event: APIGatewayProxyEvent | unknown,
    options: InvokeOptions,
  ): Promise<InvokeResult> {
    let worker: WorkerProcess | undefined;
    let finished = false;
    let waiter: Waiter | undefined;
    let reject: (error: unknown) => void = () => {};
    const stop = (ending: 'timeout' | 'aborted') => {
      if (finished) return;
      if (worker) worker.kill(ending);
      else {
        if (waiter) waiter.cancelled = true;
        reject(new InvocationEnded(ending, false, 'while waiting for a worker'));
      }
    };
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const cleanUp = () => {
      finished = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    try {
      if (options.signal?.aborted) throw new InvocationEnded('aborted', false);
      worker = await new Promise<WorkerProcess>((resolve, rejectWait) => {
        reject = rejectWait;
        const free = this.#take(functionName);
        if (free) return resolve(free);
        waiter = { grant: resolve, cancelled: false };
        this.#queue(functionName).push(waiter);
      });
      // A cold worker's init is not part of the invocation's time, as in Lambda; it has a bound of
      // its own so that a module that never finishes loading cannot hold the call for ever.
      if (!worker.initialized) {
        const initTimer = setTimeout(() => stop('timeout'), INIT_LIMIT_MS);
        await worker.ready;
        clearTimeout(initTimer);
      }
      timer = setTimeout(() => stop('timeout'), options.timeoutMs);
      const result = await worker.run({ event, timeoutMs: options.timeoutMs }, () => this.#release(worker!));
      result.done.then(cleanUp, cleanUp);
      return result;
    } catch (error) {
      cleanUp();
      throw error;
    }
  }

  /**
   * An asynchronous invocation (InvocationType Event): answered by nobody, failures logged, and
   * retried twice, one and two minutes apart, as Lambda retries a function error, timeout or crash.
   */
  invokeAsync(functionName: string, payload: unknown, attempt = 1): void {
    const { timeoutSeconds } = this.#sizing(functionName);
    const work = async () => {
      const result = await this.invoke(functionName, payload, { timeoutMs: timeoutSeconds * 1000 });
      if (!Buffer.isBuffer(result.body)) result.body.resume();
      await result.done;
    };
    work().catch((error: unknown) => {
      if (this.#closed) return;
      log('error', 'async invocation failed', {
        function: functionName,
        attempt,
        cause: error instanceof Error ? error.stack : String(error),
      });
      if (attempt >= 3) return;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.invokeAsync(functionName, payload, attempt + 1);
      }, attempt * 60_000);
      this.#timers.add(timer);
    });
  }

  /** Ends every worker and refuses the calls still waiting; resolves when the processes are gone. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watch);
    for (const timer of this.#timers) clearTimeout(timer);
    const workers = [...this.#workers.values()].flatMap((set) => [...set]);
    for (const worker of workers) worker.kill('shutdown');
    await Promise.all(workers.map((worker) => worker.exited));
  }

  /** The process ids of the running workers (for tests and diagnostics). */
  pids(): number[] {
    return [...this.#workers.values()].flatMap((set) => [...set].map((worker) => worker.child.pid ?? 0));
  }

  /** An idle worker of the function, or a new one if the function is under its cap. */
  #take(functionName: string): WorkerProcess | undefined {
    if (this.#closed) throw new InvocationEnded('shutdown', false);
    const idle = this.#idle.get(functionName) ?? [];
    while (idle.length > 0) {
      const worker = idle.pop()!;
      if (worker.alive) return worker;
    }
    const workers = this.#workers.get(functionName) ?? new Set();
    if (workers.size >= this.#options.maxWorkersPerFunction) return undefined;
    const { memoryMiB } = this.#sizing(functionName);
    const worker = new WorkerProcess(functionName, memoryMiB, (ended) => this.#ended(ended));
    workers.add(worker);
    this.#workers.set(functionName, workers);
    return worker;
  }

  #queue(functionName: string): Waiter[] {
    const queue = this.#waiting.get(functionName) ?? [];
    this.#waiting.set(functionName, queue);
    return queue;
  }

  /** A worker done with its invocation: to the next waiting call, else warm in the idle list. */
  #release(worker: WorkerProcess): void {
    const queue = this.#queue(worker.functionName);
    for (let next = queue.shift(); next; next = queue.shift()) {
      if (next.cancelled) continue;
      next.grant(worker);
      return;
    }
    const idle = this.#idle.get(worker.functionName) ?? [];
    idle.push(worker);
    this.#idle.set(worker.functionName, idle);
    this.#trimIdle();
  }

  /** A worker that exited: forgotten, and replaced for a call that waits for one. */
  #ended(worker: WorkerProcess): void {
    this.#workers.get(worker.functionName)?.delete(worker);
    const idle = this.#idle.get(worker.functionName);
    if (idle)
      this.#idle.set(
        worker.functionName,
        idle.filter((other) => other !== worker),
      );
    if (this.#closed) return;
    const queue = this.#queue(worker.functionName);
    while (queue[0]?.cancelled) queue.shift();
    if (queue.length === 0) return;
    const replacement = this.#take(worker.functionName);
    if (replacement) queue.shift()?.grant(replacement);
  }

  /** Ends the least recently used idle workers past the warm limit, and any idle too long. */
  #trimIdle(): void {
    const idle = [...this.#idle.values()].flat().sort((a, b) => a.lastUsed - b.lastUsed);
    const cutoff = Date.now() - this.#options.idleMs;
    idle.forEach((worker, index) => {
      if (index < idle.length - this.#options.maxIdleWorkers || worker.lastUsed < cutoff) worker.kill('idle');
    });
  }

  /** Ends a busy worker whose process tree passed its function's memory size. */
  #watchWorkers(): void {
    for (const workers of this.#workers.values()) {
      for (const worker of workers) {
        if (!worker.busy || !worker.alive) continue;
        const rss = worker.treeRssBytes();
        if (rss <= worker.memoryMiB * 1024 * 1024) continue;
        log('error', 'function ran out of memory', {
          function: worker.functionName,
          memoryMiB: worker.memoryMiB,
          rssMiB: Math.round(rss / 1024 / 1024),
        });
        worker.kill('memory');
      }
    }
    if (Date.now() % 5000 < this.#options.memoryWatchMs) this.#trimIdle();
  }
}
