import { type Browser, type Page, TimeoutError } from 'puppeteer-core';
import { type GuardTally, guardPage } from '#shared/documents/browser-guard.ts';
import { discardBrowser, sharedBrowser } from '#shared/documents/browser-launch.ts';
import { documentsConfig } from '#shared/documents/config.ts';
import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';

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
  try {
    const page = await context.newPage();
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
    await load(page, options);
    const leftForWork = Math.min(documentsConfig.BROWSER_PRINT_MS, timeLeft(options.deadline));
    return await bounded(work(page), leftForWork, 'rendered');
  } finally {
    ended.abort(new Error('render ended'));
    const closed = await Promise.race([
      context.close().then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000)),
    ]).catch(() => false);
    if (!closed) await discardBrowser();
    log('info', 'page rendered', { ms: Date.now() - started, ...tally });
  }
}
