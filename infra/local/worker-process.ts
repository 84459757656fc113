import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { writeLogLines } from '#shared/log.ts';
import { processTree, residentBytes } from '#shared/process-tree.ts';
import { allocatorEnvironment } from '#shared/routes/sizing.ts';
import { FrameReader, FrameType } from './frames.ts';
import type { InvokeResult } from './invoke.ts';
import type { Invocation } from './worker.ts';

const workerFile = fileURLToPath(new URL('./worker.ts', import.meta.url));

/**
 * Node's compile cache for the workers' modules (NODE_COMPILE_CACHE chooses another folder): a
 * worker loads its handler from TypeScript source, which costs about a second of CPU; with the
 * code compiled by an earlier worker it costs a third less. A deployed function loads one bundle.
 */
const compileCache = fileURLToPath(new URL('../../node_modules/.cache/compile-cache/', import.meta.url));

/** Why a worker's invocation ended without an answer. */
export type Ending = 'timeout' | 'memory' | 'crash' | 'aborted' | 'shutdown' | 'idle';

/** An invocation that ended without an answer; `headSent` tells whether part of one went out. */
export class InvocationEnded extends Error {
  readonly ending: Ending;
  readonly headSent: boolean;

  constructor(ending: Ending, headSent: boolean, detail = '') {
    super(`invocation ended: ${ending}${detail ? ` (${detail})` : ''}`);
    this.name = 'InvocationEnded';
    this.ending = ending;
    this.headSent = headSent;
  }
}

interface Running {
  resolve(result: InvokeResult): void;
  reject(error: unknown): void;
  settleDone(error?: unknown): void;
  headSent: boolean;
  /** A buffered answer's body, collected until `end`. */
  chunks?: Buffer[];
  head?: { statusCode: number; headers: Record<string, string | string[]> };
  body?: PassThrough;
}

/**
 * One worker process of a function: started with the function's memory size as its heap limit,
 * running one invocation at a time. The pool decides when to end it; `kill` records why, so the
 * waiting call is answered for that reason.
 */
export class WorkerProcess {
  readonly functionName: string;
  readonly memoryMiB: number;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  /** Settles once the handler's module has loaded (the init phase), or when the process is gone. */
  readonly ready: Promise<void>;
  /** Whether `ready` has settled: a warm worker's invocations skip the wait. */
  initialized = false;
  lastUsed = Date.now();
  #answers: Readable;
  #reader = new FrameReader();
  #running: Running | undefined;
  #ending: Ending | undefined;
  #onIdle: () => void = () => {};

  constructor(functionName: string, memoryMiB: number, onExit: (worker: WorkerProcess) => void) {
    this.functionName = functionName;
    this.memoryMiB = memoryMiB;
    // The heap gets most of the function's memory; the pool's watch of the whole process tree
    // (native buffers, libvips, ffmpeg) enforces the rest.
    const heapMiB = Math.max(64, Math.floor(memoryMiB * 0.85));
    // Its own /tmp, as each Lambda execution environment has: what a killed worker leaves there
    // (a request's workspace, half a conversion) goes with the worker.
    const workerTmp = mkdtempSync(join(tmpdir(), 'lambda-tmp-'));
    this.child = spawn(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        `--max-old-space-size=${heapMiB}`,
        workerFile,
        functionName,
        String(memoryMiB),
      ],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'ipc'],
        // Invocations are JSON events: JSON costs a fifth of the structured clone's time on them.
        serialization: 'json',
        env: {
          NODE_COMPILE_CACHE: compileCache,
          ...process.env,
          ...allocatorEnvironment,
          TMPDIR: workerTmp,
        },
      },
    );
    this.#answers = this.child.stdio[3] as Readable;
    this.#answers.on('data', (chunk: Buffer) =>
      this.#reader.push(chunk, (type, payload) => this.#frame(type, payload)),
    );
    this.#answers.on('error', () => {}); // the exit below reports it
    this.child.on('error', () => {}); // a failed spawn exits too
    this.ready = new Promise<void>((resolve) => {
      this.child.once('message', () => resolve());
      this.child.once('exit', () => resolve());
    }).then(() => {
      this.initialized = true;
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        rmSync(workerTmp, { recursive: true, force: true });
        const ending = this.#ending ?? (signal === 'SIGABRT' || code === 134 ? 'memory' : 'crash');
        this.#fail(new InvocationEnded(ending, this.#running?.headSent ?? false, `exit ${code ?? signal}`));
        onExit(this);
        resolve();
      });
    });
  }

  get busy(): boolean {
    return this.#running !== undefined;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && this.#ending === undefined;
  }

  /** Runs one invocation; `onIdle` is called once the worker can take the next. */
  run(invocation: Invocation, onIdle: () => void): Promise<InvokeResult> {
    this.lastUsed = Date.now();
    this.#onIdle = onIdle;
    return new Promise<InvokeResult>((resolve, reject) => {
      let settleDone: (error?: unknown) => void = () => {};
      const done = new Promise<void>((resolveDone, rejectDone) => {
        settleDone = (error) => (error ? rejectDone(error) : resolveDone());
      });
      done.catch(() => {}); // observed by the caller when it matters
      this.#running = {
        resolve: (result) => resolve({ ...result, done }),
        reject,
        settleDone,
        headSent: false,
      };
      if (!this.alive) {
        this.#fail(new InvocationEnded(this.#ending ?? 'crash', false, 'worker already gone'));
        return;
      }
      this.child.send(invocation, (error) => {
        if (!error) return;
        this.#fail(new InvocationEnded('crash', false, 'could not send the invocation'));
        this.kill('crash');
      });
    });
  }

  /**
   * Ends the process at once (SIGKILL: a spinning handler never sees a gentler signal), and what it
   * started with it (ffmpeg, LibreOffice), as a Lambda execution environment ends whole.
   */
  kill(ending: Ending): void {
    this.#ending ??= ending;
    const started = this.child.pid === undefined ? [] : processTree(this.child.pid).slice(1);
    this.child.kill('SIGKILL');
    for (const pid of started) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** Resident memory of the worker and every process it started (ffmpeg, ffprobe), in bytes. */
  treeRssBytes(): number {
    if (this.child.pid === undefined) return 0;
    return processTree(this.child.pid).reduce((total, pid) => total + residentBytes(pid), 0);
  }

  #frame(type: FrameType, payload: Buffer): void {
    if (type === FrameType.log) {
      writeLogLines(payload.toString('utf8'));
      return;
    }
    const running = this.#running;
    if (!running) return;
    if (type === FrameType.head) {
      const head = JSON.parse(payload.toString('utf8')) as Running['head'] & { buffered: boolean };
      running.head = head;
      if (head.buffered) {
        running.chunks = [];
        return;
      }
      running.headSent = true;
      running.body = new PassThrough();
      running.resolve({ ...head, body: running.body, done: Promise.resolve() });
    } else if (type === FrameType.data) {
      if (running.chunks) running.chunks.push(payload);
      // A body the gateway no longer reads (its caller closed the connection) drops the rest.
      else if (running.body && !running.body.destroyed && !running.body.write(payload)) {
        this.#answers.pause();
        // Resumed when the body has room again, or is gone (its frames are then dropped).
        const resume = () => this.#answers.resume();
        running.body.once('drain', resume);
        running.body.once('close', resume);
      }
    } else if (type === FrameType.end) {
      if (running.chunks && running.head) {
        running.resolve({ ...running.head, body: Buffer.concat(running.chunks), done: Promise.resolve() });
      }
      running.body?.end();
      running.settleDone();
      this.#finish();
    } else if (type === FrameType.fail) {
      const { message } = JSON.parse(payload.toString('utf8')) as { message: string };
      const error = Object.assign(new Error(message.split('\n')[0]), { stack: message });
      this.#fail(error);
      this.#finish();
    }
  }

  /** Answers the running invocation with an error: a rejection before the head, a cut body after. */
  #fail(error: Error): void {
    const running = this.#running;
    if (!running) return;
    if (running.headSent) running.body?.destroy(error);
    else running.reject(error);
    running.settleDone(error);
    this.#running = undefined;
  }

  #finish(): void {
    this.#running = undefined;
    this.lastUsed = Date.now();
    if (this.alive) this.#onIdle();
  }
}
