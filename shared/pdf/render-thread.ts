import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/*
 * pdfium renders a page in one synchronous WebAssembly call: a page that never finishes would hold
 * the event loop, so no timer of the request could end it, and the request would run on to the
 * function's timeout. Pages are therefore rendered on a thread of their own, with an instance of
 * pdfium of its own; a render that passes its limit ends the thread (Worker.terminate stops
 * WebAssembly mid-call), and the request answers at once.
 */

/**
 * Plain JavaScript run by the thread: the same from the sources and from a bundle. Its names are
 * kept inside a function: an eval'd script's top-level ones are global, and pdfium's loader looks
 * for a global `document`.
 */
const threadSource = `(() => {
const { parentPort, workerData } = require('node:worker_threads');
const { PDFiumLibrary } = require(workerData.pdfium);
const library = PDFiumLibrary.init();
let pdf;
parentPort.on('message', async (message) => {
  try {
    if (message.close) {
      if (pdf) pdf.destroy();
      pdf = undefined;
      return;
    }
    if (message.open) {
      pdf = await (await library).loadDocument(message.open);
      parentPort.postMessage({ opened: true });
      return;
    }
    const bitmap = await pdf.getPage(message.page - 1).render({ scale: message.scale, render: 'bitmap' });
    const data = bitmap.data.byteOffset === 0 && bitmap.data.byteLength === bitmap.data.buffer.byteLength
      ? bitmap.data
      : bitmap.data.slice();
    parentPort.postMessage({ width: bitmap.width, height: bitmap.height, data }, [data.buffer]);
  } catch (error) {
    parentPort.postMessage({
      failed: error instanceof WebAssembly.RuntimeError ? 'trap' : 'error',
      message: String(error && error.message),
    });
  }
});
})();
`;

export interface Bitmap {
  width: number;
  height: number;
  data: Uint8Array;
}

/** pdfium failed inside its WebAssembly (a trap or an abort): the thread's instance is not to be trusted. */
export class RenderTrap extends Error {}

/** The render did not end within its limit; the thread was ended. */
export class RenderTimeout extends Error {}

type Answer = { opened: true; failed?: undefined } | ({ opened?: undefined; failed?: undefined } & Bitmap);
type Reply = Answer | { opened?: undefined; failed: 'trap' | 'error'; message: string };

type Pending = { resolve(reply: Reply): void; reject(error: Error): void };

let pdfiumEntry: string | undefined;

/** One document open in pdfium on a thread of its own. `open` first, then `render` page by page. */
export class RenderThread {
  readonly #worker: Worker;
  #pending: Pending | undefined;
  #ended = false;

  constructor() {
    pdfiumEntry ??= createRequire(import.meta.url).resolve('@hyzyla/pdfium');
    // The thread's script is CommonJS whatever flags started this process (`--input-type=module`
    // would make it a module, without `require`), so it takes none of them.
    this.#worker = new Worker(threadSource, {
      eval: true,
      execArgv: [],
      workerData: { pdfium: pdfiumEntry },
    });
    this.#worker.on('message', (reply: Reply) => this.#settle((pending) => pending.resolve(reply)));
    this.#worker.on('error', (error) =>
      this.#settle((pending) => pending.reject(new RenderTrap(error.message))),
    );
    this.#worker.on('exit', () => {
      this.#ended = true;
      this.#settle((pending) => pending.reject(new RenderTrap('the render thread ended')));
    });
  }

  /** Opens the document; a file pdfium refuses rejects with its message (an Error). */
  async open(bytes: Uint8Array, limitMs: number): Promise<void> {
    await this.#call({ open: bytes }, limitMs);
  }

  async render(page: number, scale: number, limitMs: number): Promise<Bitmap> {
    const reply = await this.#call({ page, scale }, limitMs);
    if (reply.opened) throw new Error('unexpected reply of the render thread');
    return { width: reply.width, height: reply.height, data: reply.data };
  }

  /** Ends the thread (its instance and document go with it). */
  end(): void {
    this.#ended = true;
    void this.#worker.terminate();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Closes the document; the thread and its pdfium instance wait for the next one. */
  close(): void {
    this.#worker.postMessage({ close: true });
  }

  /** An idle thread does not keep the process alive. */
  idle(idle: boolean): void {
    if (idle) this.#worker.unref();
    else this.#worker.ref();
  }

  async #call(message: unknown, limitMs: number): Promise<Answer> {
    if (this.#ended || this.#pending) throw new RenderTrap('the render thread is not available');
    let timer: NodeJS.Timeout | undefined;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.#pending = { resolve, reject };
      timer = setTimeout(() => {
        this.end();
        this.#settle((pending) => pending.reject(new RenderTimeout(`no answer within ${limitMs} ms`)));
      }, limitMs);
      this.#worker.postMessage(message);
    }).finally(() => clearTimeout(timer));
    if (reply.failed === undefined) return reply;
    throw reply.failed === 'trap' ? new RenderTrap(reply.message) : new Error(reply.message);
  }

  #settle(action: (pending: Pending) => void): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) action(pending);
  }
}

/**
 * Threads kept between documents: starting one (a pdfium instance of its own) takes about a
 * second and a half, reusing one nothing. A thread that passed a limit or trapped is ended, never
 * kept.
 */
const idleThreads: RenderThread[] = [];
const maxIdleThreads = 2;

export function takeThread(): RenderThread {
  let thread = idleThreads.pop();
  while (thread?.ended) thread = idleThreads.pop();
  thread ??= new RenderThread();
  thread.idle(false);
  return thread;
}

export function giveBack(thread: RenderThread): void {
  if (thread.ended) return;
  if (idleThreads.length >= maxIdleThreads) {
    thread.end();
    return;
  }
  thread.close();
  thread.idle(true);
  idleThreads.push(thread);
}
