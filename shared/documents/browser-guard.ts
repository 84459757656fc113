import type { IncomingMessage } from 'node:http';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { maxSubresources } from '#shared/documents/browser-limits.ts';
import type { HostLookup } from '#shared/source/address.ts';
import { openPinnedRequest } from '#shared/source/pinned-request.ts';

export interface GuardOptions {
  /** Bytes the page may fetch in all, its own document included, counted as they arrive. */
  maxBytes: number;
  allowPrivate: boolean;
  /** Ends every fetch still running when the render ends. */
  signal: AbortSignal;
  /** The page's own document, already downloaded under the source rules, served at its URL. */
  document?: { url: string; body: Buffer; contentType: string };
  lookup?: HostLookup;
}

/** What the guard let through and kept out, for the request's log line. */
export interface GuardTally {
  fetched: number;
  bytes: number;
  blocked: number;
}

// Not passed on to the page: hop-by-hop fields, cookies, and the framing of a body we re-frame.
const droppedHeaders =
  /^(connection|keep-alive|transfer-encoding|content-length|content-encoding|set-cookie|set-cookie2|trailer|upgrade|proxy-\w+)$/i;

function pageHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || droppedHeaders.test(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * Reads a body, counting each chunk against the page's budget as it arrives, so that responses read
 * side by side share one budget. Undefined once the budget is spent, by this body or another.
 */
async function readCounted(
  response: IncomingMessage,
  tally: GuardTally,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (tally.bytes + chunk.length > maxBytes) {
      tally.bytes = maxBytes;
      return undefined;
    }
    tally.bytes += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Makes every request of the page follow the source rules. `data:` stays inline; http(s) GETs to
 * public addresses are fetched by the service itself (resolved once, connected to that address,
 * no redirects) and their bytes handed to the page; everything else (file:, chrome:, ws:, other
 * schemes and methods, a second top-level navigation, anything past the page's budget) is aborted,
 * and the page renders without it. The bytes of every response count against `maxBytes` as they
 * arrive: once it is spent, every fetch still reading and every later one is refused.
 */
export async function guardPage(page: Page, options: GuardOptions): Promise<GuardTally> {
  const tally: GuardTally = { fetched: 0, bytes: options.document?.body.length ?? 0, blocked: 0 };
  let documentServed = false;

  const block = async (request: HTTPRequest): Promise<void> => {
    tally.blocked += 1;
    await request.abort('blockedbyclient');
  };

  const fetchFor = async (request: HTTPRequest, url: URL): Promise<void> => {
    if (tally.fetched >= maxSubresources || tally.bytes >= options.maxBytes) return block(request);
    tally.fetched += 1;
    let response: IncomingMessage | undefined;
    try {
      response = await openPinnedRequest(url, {
        allowPrivate: options.allowPrivate,
        signal: options.signal,
        lookup: options.lookup,
        headers: {
          accept: request.headers().accept ?? '*/*',
          'accept-encoding': 'identity',
          'user-agent': 'file-conversion-api',
        },
      });
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) return block(request);
      const body = await readCounted(response, tally, options.maxBytes);
      if (body === undefined) return block(request);
      await request.respond({ status, headers: pageHeaders(response), body });
    } catch {
      // A blocked address, a refused connection or the render's end: the page goes on without it.
      return block(request);
    } finally {
      response?.destroy();
    }
  };

  const handle = async (request: HTTPRequest): Promise<void> => {
    const raw = request.url();
    if (raw.startsWith('data:') || raw === 'about:blank') return request.continue();
    const topLevel = request.isNavigationRequest() && request.frame() === page.mainFrame();
    const { document } = options;
    if (topLevel && document !== undefined && !documentServed && raw === document.url) {
      documentServed = true;
      return request.respond({ status: 200, contentType: document.contentType, body: document.body });
    }
    // The page stays the page it was asked for: no script, refresh or form takes it elsewhere. A
    // navigation answered 204 No Content is dropped and the page stays as it stood; aborted, the
    // browser would show its error page instead.
    if (topLevel) {
      tally.blocked += 1;
      return request.respond({ status: 204, body: '' });
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return block(request);
    }
    const method = request.method();
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || (method !== 'GET' && method !== 'HEAD'))
      return block(request);
    return fetchFor(request, url);
  };

  await page.setRequestInterception(true);
  page.on('request', (request) => {
    // A request whose page has closed cannot be answered any more; that is not an error.
    handle(request).catch(() => {});
  });
  return tally;
}
