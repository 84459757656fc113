import { type Browser, type Page, TimeoutError } from 'puppeteer-core';
import { type GuardTally, guardPage } from '#shared/documents/browser-guard.ts';
import { discardBrowser, sharedBrowser } from '#shared/documents/browser-launch.ts';
import { inMiB, maxBrowserBytes, maxPrintPages } from '#shared/documents/browser-limits.ts';
import { documentsConfig } from '#shared/documents/config.ts';
import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { killAll, processTree, residentBytes } from '#shared/process-tree.ts';

/** What the page shows: markup of our own, or a web page already downloaded under the source rules. */
export type PageContent =
  | { kind: 'html'; html: string }
  | { kind: 'document'; url: string; body: Buffer; contentType: string };

export interface RenderOptions {
  content: PageContent;
  javascript: boolean;
  waitFor: 'load' | 'networkidle';
  viewport?: { width: number; height: number };
  /** Bytes the page may fetch in all: the tier's source size. */
  maxBytes: number;
  allowPrivate: boolean;
  /** The request's signal: a caller gone ends the render. */
  signal: AbortSignal;
  /** When the request must have answered (epoch ms). */
  deadline?: number | undefined;
}

/** Time kept back before the request's deadline for closing the page and sending the answer. */
const closingMarginMs = 2000;

function timeLeft(deadline: number | undefined): number {
  return (deadline ?? Number.POSITIVE_INFINITY) - Date.now() - closingMarginMs;
}

export function renderTimeout(what: string, cause?: unknown): ApiError {
  return new ApiError(
    'render_timeout',
    `The page could not be ${what} in time: a script on it kept the browser busy.`,
    { cause },
  );
}

/** Runs `work` with a bound: past `ms` the render is given up as a render_timeout. */
export async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(renderTimeout(what)), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, expired]);
  } catch (error) {
    if (error instanceof TimeoutError) throw renderTimeout(what, error);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Loads the content within the load budget; a page still loading then is used as it stands. The
 * budget is kept by a timer of our own too: a script that never yields also stalls the browser's
 * answer to `setContent`, which then never times out on its own.
 */
async function load(page: Page, options: RenderOptions): Promise<void> {
  const budget = Math.max(
    1,
    Math.min(documentsConfig.BROWSER_LOAD_MS, timeLeft(options.deadline) - documentsConfig.BROWSER_PRINT_MS),
  );
  const waitUntil = options.waitFor === 'networkidle' ? 'networkidle0' : 'load';
  const { content } = options;
  const loading =
    content.kind === 'html'
      ? page.setContent(content.html, { waitUntil: 'load', timeout: budget })
      : page.goto(content.url, { waitUntil, timeout: budget }).then(() => undefined);
  // Whatever the load ends with after the budget is of no interest any more.
  loading.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budget + 500);
  });
  try {
    await Promise.race([loading, expired]);
  } catch (error) {
    if (!(error instanceof TimeoutError)) {
      throw new ApiError('invalid_source_file', 'The browser could not open the page.', { cause: error });
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Chromium's answer when printing could not allocate what the page needs. */
const isPrintFailure = (error: unknown): boolean =>
  error instanceof Error && !(error instanceof ApiError) && /Printing failed/.test(error.message);

/** 400 for a page that needed more memory than the browser has: the limits it ran into, named. */
export function pageTooLarge(cause?: unknown): ApiError {
  return new ApiError(
    'invalid_source_file',
    `The page needs more than the browser's ${inMiB(maxBrowserBytes)} of memory to render ` +
      `(a script's allocations, an image of too many pixels, or a document of far more than ${maxPrintPages} pages).`,
    { cause },
  );
}

/** 400 for a page without scripts whose layout and painting did not end in the time printing has. */
function pageTooSlow(cause: unknown): ApiError {
  return new ApiError(
    'invalid_source_file',
    `The page could not be rendered within the ${documentsConfig.BROWSER_PRINT_MS / 1000} s a page gets to print ` +
      `(an image of too many pixels, or a document of far more than ${maxPrintPages} pages).`,
    { cause },
  );
}

/** How often the browser's memory is read while a page renders. */
const memoryWatchMs = 50;

/**
 * Reads the memory of the browser's processes while a page renders and, once they hold more than
 * maxBrowserBytes together, kills the browser (its memory is handed back at once) and calls `fail`.
 * Returns the function that ends the watch.
 */
function watchMemory(browser: Browser, fail: (error: ApiError) => void): () => void {
  const root = browser.process()?.pid;
  if (root === undefined) return () => {};
  const timer = setInterval(() => {
    const processes = processTree(root);
    const held = processes.reduce((sum, pid) => sum + residentBytes(pid), 0);
    if (held <= maxBrowserBytes) return;
    clearInterval(timer);
    log('info', 'page past the browser memory', { heldMiB: Math.round(held / 1024 / 1024) });
    // Killed at once, every process of it: closing it politely would leave its memory held while
    // the next request starts a browser of its own.
    killAll(processes);
    fail(pageTooLarge());
    discardBrowser().catch(() => {});
  }, memoryWatchMs);
  return () => clearInterval(timer);
}

/**
 * The instance's browser, ready for a request: a launch that fails is tried once more (a loaded
 * machine can fail one), and a browser that has gone since the last request is replaced, so one
 * request's crashed browser never fails the next.
 */
async function usableBrowser(): Promise<Browser> {
  const browser = await sharedBrowser().catch(() => sharedBrowser());
  if (browser.connected) return browser;
  await discardBrowser();
  return sharedBrowser();
}

/**
 * Opens the content in a fresh, private browser context of the instance's shared browser, with
 * every request guarded, and hands the loaded page to `work`. The context (its cookies, storage
 * and cache) is closed afterwards, whatever happened; a browser that will not close it is replaced.
 */
export async function withRenderedPage<T>(
  options: RenderOptions,
  work: (page: Page) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  const browser = await usableBrowser();
  const context = await browser.createBrowserContext();
  const ended = new AbortController();
  const signal = AbortSignal.any([ended.signal, options.signal]);
  let tally: GuardTally | undefined;
  // Rejected when the page outgrows the browser's memory, or its renderer ends (it ran into its
  // data limit): what is under way is given up and the page answered as too large.
  let fail: (error: ApiError) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {});
  const stopWatch = watchMemory(browser, fail);
  try {
    const page = await context.newPage();
    page.once('error', (error) => fail(pageTooLarge(error)));
    await page.setJavaScriptEnabled(options.javascript);
    await page.setBypassServiceWorker(true);
    if (options.viewport) await page.setViewport({ ...options.viewport, deviceScaleFactor: 1 });
    const document = options.content.kind === 'document' ? options.content : undefined;
    tally = await guardPage(page, {
      maxBytes: options.maxBytes,
      allowPrivate: options.allowPrivate,
      signal,
      ...(document ? { document } : {}),
    });
    await Promise.race([load(page, options), failed]);
    const leftForWork = Math.min(documentsConfig.BROWSER_PRINT_MS, timeLeft(options.deadline));
    return await Promise.race([bounded(work(page), leftForWork, 'rendered'), failed]);
  } catch (error) {
    if (isPrintFailure(error)) throw pageTooLarge(error);
    // Without scripts, the work that ran out of time is the markup's own layout and painting.
    if (!options.javascript && error instanceof ApiError && error.code === 'render_timeout')
      throw pageTooSlow(error);
    throw error;
  } finally {
    stopWatch();
    ended.abort(new Error('render ended'));
    const closed = await Promise.race([
      context.close().then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000)),
    ]).catch(() => false);
    if (!closed) await discardBrowser();
    log('info', 'page rendered', { ms: Date.now() - started, ...tally });
  }
}
