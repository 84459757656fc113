import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserLayers,
  fontsOf,
  imageCountOf,
  pageSizeOf,
  pngSquare,
  poppler,
} from '../support/documents.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';

/**
 * The browser routes through the local gateway over real HTTP, with the packed Chromium. Two
 * gateways: one that lets sources come from loopback (to serve pages and images from this test),
 * one under the production rule (private addresses refused) for the request guard's SSRF page.
 * Launching browsers is the cost, so the cases are few and each checks several things.
 */

const sources = new FixtureServer();
/** The SSRF target: every request it receives is a hit the guard should have stopped. */
const target = new FixtureServer();
const hits: string[] = [];
const hung: ServerResponse[] = [];
let open: RunningGateway;
let strict: RunningGateway;
const key = { 'x-api-key': 'documents-key' };

const bodyOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
const post = (gateway: RunningGateway, path: string, body: unknown) =>
  postJson(`${gateway.url}${path}`, body, key);

async function pdfFrom(response: Response): Promise<Buffer> {
  const body = await bodyOf(response);
  expect(response.status, body.toString('utf8', 0, 300)).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  return body;
}

/** Text as pdftotext reads it, with line breaks and runs of spaces folded. */
const textOf = (pdf: Buffer) => poppler('pdftotext', pdf).replace(/\s+/g, ' ');

beforeAll(async () => {
  const chromiumPath = browserLayers();
  await sources.start();
  await target.start();
  target.route('/', (request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end('secret');
  });
  for (const path of [
    '/img.png',
    '/frame.html',
    '/style.css',
    '/bg.png',
    '/font.woff2',
    '/fetch',
    '/ws',
    '/worker.js',
  ])
    target.route(path, (request, response) => {
      hits.push(request.url ?? '');
      response.writeHead(200).end('secret');
    });
  const settings = {
    API_KEYS: 'documents-key:enterprise:100000',
    CHROMIUM_EXECUTABLE: chromiumPath,
    // Short budgets keep the never-finishing pages quick to answer; printing gets room enough for
    // the 200-image page on a heavily loaded machine.
    BROWSER_LOAD_MS: '4000',
    BROWSER_PRINT_MS: '10000',
  };
  [open, strict] = await Promise.all([
    startLocalGateway({ ...settings, SOURCE_ALLOW_PRIVATE: 'true' }),
    startLocalGateway({ ...settings, SOURCE_ALLOW_PRIVATE: 'false' }),
  ]);
});

afterAll(async () => {
  for (const response of hung) response.destroy();
  await Promise.all([open?.stop(), strict?.stop()]);
  await Promise.all([sources.stop(), target.stop()]);
});

describe('/html-to-pdf and /url-to-pdf', () => {
  it('prints text in embedded fonts, inline and fetched images, on the page size asked for', async () => {
    const red = sources.serve('/assets/red.png', pngSquare('red'), 'image/png');
    const blue = `data:image/png;base64,${pngSquare('blue').toString('base64')}`;
    const html =
      `<h1>Quarterly report</h1><p>Ωμέγα Привет Zürich</p><img src="${red}"><img src="${blue}">` +
      '<p style="font-family: monospace">mono 42</p>';
    const portrait = await pdfFrom(await post(open, '/html-to-pdf', { html }));
    const text = textOf(portrait);
    expect(text).toContain('Quarterly report');
    expect(text).toContain('Ωμέγα Привет Zürich');
    expect(imageCountOf(portrait)).toBe(2);
    const fonts = fontsOf(portrait);
    expect(fonts.length).toBeGreaterThan(0);
    expect(fonts.every((font) => font.embedded)).toBe(true);
    const a4 = pageSizeOf(portrait);
    expect(a4.width).toBeCloseTo(595.3, -0.5);
    expect(a4.height).toBeCloseTo(841.9, -0.5);

    const turned = await pdfFrom(
      await post(open, '/html-to-pdf', {
        html: '<p>wide</p>',
        pageSize: 'letter',
        landscape: true,
        margin: 0,
      }),
    );
    const letter = pageSizeOf(turned);
    expect([Math.round(letter.width), Math.round(letter.height)]).toEqual([792, 612]);

    const custom = pageSizeOf(
      await pdfFrom(
        await post(open, '/html-to-pdf', { html: '<p>t</p>', pageSize: { width: 300, height: 400 } }),
      ),
    );
    expect([Math.round(custom.width), Math.round(custom.height)]).toEqual([300, 400]);
  });

  it('prints a web page with its relative stylesheet and image, named after the page', async () => {
    sources.serve('/site/style.css', 'h1 { text-transform: uppercase; }', 'text/css');
    sources.serve('/site/logo.png', pngSquare('green'), 'image/png');
    const url = sources.serve(
      '/site/about.html',
      '<!doctype html><link rel="stylesheet" href="style.css"><h1>About us</h1><img src="logo.png"><p>Zürich Ωμέγα</p>',
      'text/html',
    );
    const response = await post(open, '/url-to-pdf', { url, pageSize: 'a5' });
    const pdf = await pdfFrom(response);
    expect(response.headers.get('content-disposition')).toContain('about.pdf');
    expect(textOf(pdf)).toContain('ABOUT US');
    // No charset declared anywhere: UTF-8 bytes are still read as UTF-8.
    expect(textOf(pdf)).toContain('Zürich Ωμέγα');
    expect(imageCountOf(pdf)).toBe(1);
    expect(Math.round(pageSizeOf(pdf).width)).toBe(420);
  });

  it('prints a page that never finishes loading as it stands, within the load budget', async () => {
    sources.route('/slow/forever.png', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      response.write(pngSquare('red').subarray(0, 20));
      hung.push(response);
    });
    const started = Date.now();
    const pdf = await pdfFrom(
      await post(open, '/html-to-pdf', {
        html: `<p>Still loading</p><img src="${sources.url('/slow/forever.png')}">`,
      }),
    );
    expect(textOf(pdf)).toContain('Still loading');
    // The budget is 4 s here; far below the function's 120 s timeout.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('answers 504 render_timeout for a page whose script never yields', async () => {
    const response = await post(open, '/html-to-pdf', {
      html: '<p>busy</p><script>for (;;) {}</script>',
      javascript: true,
    });
    expect(response.status).toBe(504);
    expect((await response.json()).error).toBe('render_timeout');
  });
});

describe('/markdown-to-pdf', () => {
  it('typesets CommonMark with tables and shows raw HTML as text', async () => {
    const markdown =
      '# Release notes\n\n| Version | Date |\n|---|---|\n| 1.2 | 2026-11-25 |\n\n' +
      'Raw <b>bold</b> and <script>alert(1)</script> stay text.\n';
    const pdf = await pdfFrom(await post(open, '/markdown-to-pdf', { markdown }));
    const text = textOf(pdf);
    expect(text).toContain('Release notes');
    expect(text).toMatch(/Version\s+Date/);
    expect(text).toContain('<b>bold</b>');
    expect(text).toContain('<script>alert(1)</script>');
  });
});

describe('/web-screenshot', () => {
  it('captures the viewport, or the whole page, in the format asked for', async () => {
    const html = '<body style="margin:0"><div style="height:3000px;background:#0b4f9c">tall</div></body>';
    const png = await bodyOf(await post(open, '/web-screenshot', { html, width: 640, height: 360 }));
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 640, height: 360 });

    const full = await post(open, '/web-screenshot', {
      html,
      outputFormat: 'webp',
      width: 400,
      height: 300,
      fullPage: true,
    });
    expect(full.headers.get('content-type')).toBe('image/webp');
    expect(await sharp(await bodyOf(full)).metadata()).toMatchObject({
      format: 'webp',
      width: 400,
      height: 3000,
    });

    const jpg = await bodyOf(
      await post(open, '/web-screenshot', { html, outputFormat: 'jpeg', width: 320, height: 240 }),
    );
    expect(await sharp(jpg).metadata()).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
  });
});

describe('the request guard', () => {
  const ssrfPage = (base: string) => `<!doctype html>
<style>
  @font-face { font-family: Leak; src: url(${base}/font.woff2); }
  body { background: url(${base}/bg.png); font-family: Leak; }
</style>
<link rel="stylesheet" href="${base}/style.css">
<link rel="preconnect" href="${base}/">
<p>Guarded page</p>
<img src="${base}/img.png">
<img src="file:///etc/passwd">
<iframe src="${base}/frame.html"></iframe>
<iframe src="file:///etc/passwd"></iframe>
<object data="file:///etc/passwd"></object>
<script>
  fetch('${base}/fetch').catch(() => {});
  fetch('file:///etc/passwd').catch(() => {});
  try { new WebSocket('${base.replace('http', 'ws')}/ws'); } catch {}
  try { new Worker('${base}/worker.js'); } catch {}
  try { new Worker('data:text/javascript,fetch("${base}/fetch")'); } catch {}
  navigator.sendBeacon && navigator.sendBeacon('${base}/fetch', 'x');
</script>`;

  it('lets no request of the page reach a loopback server or a local file', async () => {
    hits.length = 0;
    const base = target.url('');
    const pdf = await pdfFrom(await post(strict, '/html-to-pdf', { html: ssrfPage(base), javascript: true }));
    const text = textOf(pdf);
    expect(text).toContain('Guarded page');
    expect(text).not.toMatch(/root:|secret/);
    const shot = await post(strict, '/web-screenshot', { html: ssrfPage(base), javascript: true });
    expect(shot.status).toBe(200);
    expect(hits).toEqual([]);
  });

  it('sends websockets to the dead proxy even where private sources are allowed', async () => {
    hits.length = 0;
    const base = target.url('');
    const html = `<p>socket</p><script>new WebSocket('${base.replace('http', 'ws')}/ws');</script>`;
    await pdfFrom(await post(open, '/html-to-pdf', { html, javascript: true }));
    expect(hits).toEqual([]);
  });

  it('fetches at most 200 subresources of a page', async () => {
    let fetched = 0;
    const dot = pngSquare('black', 2);
    for (let index = 0; index < 230; index += 1) {
      sources.route(`/many/${index}.png`, (_request, response) => {
        fetched += 1;
        response.writeHead(200, { 'Content-Type': 'image/png' }).end(dot);
      });
    }
    const images = Array.from(
      { length: 230 },
      (_, index) => `<img src="${sources.url(`/many/${index}.png`)}">`,
    );
    const pdf = await pdfFrom(await post(open, '/html-to-pdf', { html: `<p>Many</p>${images.join('')}` }));
    expect(textOf(pdf)).toContain('Many');
    expect(fetched).toBe(200);
  });

  it('answers 400 source_blocked_address for a url at a loopback address', async () => {
    hits.length = 0;
    for (const path of ['/url-to-pdf', '/web-screenshot']) {
      const response = await post(strict, path, { url: target.url('/') });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'source_blocked_address' });
    }
    expect(hits).toEqual([]);
  });

  it('refuses a body with both or neither of the page fields', async () => {
    const both = await post(strict, '/html-to-pdf', { html: '<p>x</p>', sourceUrl: target.url('/') });
    expect(both.status).toBe(400);
    expect((await both.json()).error).toBe('validation_failed');
    const neither = await post(strict, '/markdown-to-pdf', {});
    expect(neither.status).toBe(400);
  });
});
