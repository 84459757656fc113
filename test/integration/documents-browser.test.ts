import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:net';
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
/** A UDP and a TCP listener on one loopback port: each datagram or connection is a packet that left a page. */
const udp = createSocket('udp4');
let tcp: Server;
let listenerPort = 0;
const reached = { datagrams: 0, connections: 0 };

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

async function startListeners(): Promise<void> {
  udp.on('message', () => {
    reached.datagrams += 1;
  });
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  listenerPort = udp.address().port;
  tcp = createServer((socket) => {
    reached.connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(listenerPort, '127.0.0.1', resolve));
}

beforeAll(async () => {
  const chromiumPath = browserLayers();
  await startListeners();
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
    // A free-tier key of its own: anonymous calls would share the IP's 10 a minute with the file.
    API_KEYS: 'documents-key:enterprise:100000,documents-free-key:free',
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
  udp.close();
  tcp?.close();
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

describe('WebRTC', () => {
  /** A page that asks a STUN server and TURN servers (over UDP and TCP) on the listeners' port. */
  const peerPage = (port: number, extra = '') => `<p>Peer page</p>${extra}<script>
  const peer = new RTCPeerConnection({ iceServers: [
    { urls: 'stun:127.0.0.1:${port}' },
    { urls: ['turn:127.0.0.1:${port}?transport=udp', 'turn:127.0.0.1:${port}?transport=tcp'],
      username: 'user', credential: 'secret' },
  ] });
  peer.createDataChannel('leak');
  peer.createOffer().then((offer) => peer.setLocalDescription(offer));
</script>`;

  it('sends no packet, UDP or TCP, to a listener on loopback from any route', async () => {
    reached.datagrams = 0;
    reached.connections = 0;
    const html = peerPage(listenerPort);
    // Under the production rule, as the red team found it: printed as soon as it has loaded.
    await pdfFrom(await post(strict, '/html-to-pdf', { html, javascript: true }));
    const shot = await post(strict, '/web-screenshot', { html, javascript: true });
    expect(shot.status).toBe(200);
    // A page that keeps loading for the whole load budget gives the peer connection all its time;
    // here even loopback sources are allowed, and still no packet of WebRTC may leave.
    sources.route('/slow/peer.png', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      hung.push(response);
    });
    const slow = peerPage(listenerPort, `<img src="${sources.url('/slow/peer.png')}">`);
    const pdf = await pdfFrom(await post(open, '/html-to-pdf', { html: slow, javascript: true }));
    expect(textOf(pdf)).toContain('Peer page');
    const url = sources.serve('/peer/page.html', html, 'text/html');
    await pdfFrom(await post(open, '/url-to-pdf', { url, javascript: true }));
    expect(reached).toEqual({ datagrams: 0, connections: 0 });
  }, 180_000);
});

describe('a page that navigates away', () => {
  it('is kept where it was and printed as it stood, the navigation refused', async () => {
    hits.length = 0;
    const away = target.url('/');
    const pages = [
      { html: `<p>Stays here</p><script>location.href = '${away}';</script>`, javascript: true },
      {
        html: `<form id="f" method="post" action="${away}"><p>Stays here</p></form><script>document.getElementById('f').submit();</script>`,
        javascript: true,
      },
      { html: `<meta http-equiv="refresh" content="0; url=${away}"><p>Stays here</p>` },
    ];
    for (const page of pages) {
      const pdf = await pdfFrom(await post(strict, '/html-to-pdf', page));
      expect(textOf(pdf), page.html).toContain('Stays here');
    }
    expect(hits).toEqual([]);
  });
});

describe('the page budget', () => {
  it('counts every response of a page, read side by side, against one budget: the tier’s source size', async () => {
    let served = 0;
    const chunk = Buffer.alloc(64 * 1024, 7);
    const images: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const url = sources.route(`/endless/${index}.png`, (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'image/png' });
        const pump = () => {
          while (!response.destroyed) {
            served += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
      images.push(`<img src="${url}">`);
    }
    // The free tier, whose source size (20 MB) is the page's budget. Each image alone stays under
    // it; the three together pass it.
    const html = `<p>Endless</p>${images.join('')}`;
    const free = { 'x-api-key': 'documents-free-key' };
    const pdf = await pdfFrom(await postJson(`${open.url}/html-to-pdf`, { html }, free));
    expect(textOf(pdf)).toContain('Endless');
    // What the sockets' buffers held when the budget was spent is counted as served, too: at most
    // the kernel's largest send and receive buffers a connection (auto-tuned, so they grow under
    // load). Without the budget the three endless bodies stream on at loopback speed until the
    // page's time is up: gigabytes.
    expect(served, `${served} bytes served`).toBeLessThan(20_000_000 + 3 * socketBuffersMax());
  });
});

/** The most a TCP connection's send and receive buffers may hold on this machine. */
function socketBuffersMax(): number {
  const largest = (name: string) =>
    Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]);
  return largest('tcp_rmem') + largest('tcp_wmem');
}

/** A PNG of side × side pixels, one bit each, made by python3's zlib: tens of kilobytes. */
function hugePng(side: number): Buffer {
  const script = `
import struct, sys, zlib
side = ${side}
row = b'\\x00' * (1 + (side + 7) // 8)
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
header = struct.pack('>IIBBBBB', side, side, 1, 0, 0, 0, 0)
sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(row * side, 9)) + chunk(b'IEND', b''))
`;
  return execFileSync('python3', ['-c', script], { maxBuffer: 64 * 1024 * 1024 });
}

describe('small inputs that would exhaust the browser', () => {
  /** A 4xx naming one of the limits, or a 200; never a 5xx. Then a small page prints as usual. */
  async function expectBounded(response: Response, limit: RegExp): Promise<void> {
    const body = await bodyOf(response);
    if (response.status !== 200) {
      expect(response.status, body.toString('utf8', 0, 300)).toBeGreaterThanOrEqual(400);
      expect(response.status, body.toString('utf8', 0, 300)).toBeLessThan(500);
      expect(JSON.parse(body.toString()).message).toMatch(limit);
    }
    const after = await pdfFrom(await post(open, '/html-to-pdf', { html: '<p>Small after</p>' }));
    expect(textOf(after)).toContain('Small after');
  }
  /** Each of these renders a page the browser cannot finish, then a small one: minutes on a loaded machine. */
  const heavy = 180_000;
  const memoryLimit = /1024 MiB of memory|within the \d+ s a page gets to print/;

  it(
    'a script that allocates 3 GB in typed arrays',
    async () => {
      const html =
        '<p>Allocating</p><script>const kept = [];' +
        'try { for (let i = 0; i < 30; i += 1) kept.push(new Uint8Array(100e6).fill(1)); } catch {}</script>';
      await expectBounded(await post(open, '/html-to-pdf', { html, javascript: true }), memoryLimit);
    },
    heavy,
  );

  it(
    'a 64 KB data: PNG of 20000 × 20000 pixels, in HTML, a screenshot and Markdown',
    async () => {
      const png = hugePng(20_000);
      expect(png.length).toBeLessThan(128 * 1024);
      const src = `data:image/png;base64,${png.toString('base64')}`;
      const html = `<p>Huge image</p><img src="${src}">`;
      await expectBounded(await post(open, '/html-to-pdf', { html }), memoryLimit);
      await expectBounded(await post(open, '/web-screenshot', { html, fullPage: true }), memoryLimit);
      await expectBounded(
        await post(open, '/markdown-to-pdf', { markdown: `# Huge image\n\n![huge](${src})\n` }),
        memoryLimit,
      );
    },
    heavy,
  );

  it(
    '150 000 forced page breaks',
    async () => {
      const html = `<style>p { break-after: page; margin: 0 }</style>${'<p>x'.repeat(150_000)}`;
      const response = await post(open, '/html-to-pdf', { html });
      expect(response.status).toBe(400);
      await expectBounded(response, /1000 pages/);
    },
    heavy,
  );

  it(
    'a Markdown table of 20 000 columns',
    async () => {
      const row = (cell: string) => `${`|${cell}`.repeat(20_000)}|\n`;
      const markdown = row('a') + row('-') + row('b').repeat(19);
      const response = await post(open, '/markdown-to-pdf', { markdown });
      expect(response.status).toBe(400);
      await expectBounded(response, /20000 columns; a table may have at most 100/);
    },
    heavy,
  );

  it(
    'a 48 MB Markdown file by sourceUrl',
    async () => {
      const sourceUrl = sources.serve(
        '/big/notes.md',
        Buffer.alloc(48 * 1024 * 1024, 'word '),
        'text/markdown',
      );
      const response = await post(open, '/markdown-to-pdf', { sourceUrl });
      expect(response.status).toBe(413);
      await expectBounded(response, /a Markdown file may hold at most 1 MiB/);
    },
    heavy,
  );
});
