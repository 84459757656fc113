import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { statusOf } from '#shared/http/errors.ts';
import type { HostLookup } from '#shared/source/address.ts';
import { downloadSource, type SourceOptions } from '#shared/source/download.ts';
import { tiers } from '#shared/tiers.ts';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { failure } from '../support/http-error.ts';
import { referenceFfmpeg } from '../support/reference-tools.ts';

const run = promisify(execFile);
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/files');

const server = new FixtureServer();
let png: Buffer;
let pdf: Buffer;
let wav: Buffer;
let workspace: Workspace;

beforeAll(async () => {
  await server.start();
  png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#3060c0' } })
    .png()
    .toBuffer();
  const document = await PDFDocument.create();
  document.addPage([100, 100]);
  pdf = Buffer.from(await document.save());
  const dir = await mkdtemp(join(tmpdir(), 'wav-'));
  await run(referenceFfmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi'],
    ...['-i', 'sine=frequency=440:duration=0.1:sample_rate=8000', join(dir, 'tone.wav')],
  ]);
  wav = await readFile(join(dir, 'tone.wav'));
  await rm(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await server.stop();
});

beforeEach(() => {
  workspace = new Workspace();
});

afterEach(async () => {
  await workspace.dispose();
});

const options = (extra: Partial<SourceOptions> = {}): SourceOptions => ({
  workspace,
  maxBytes: tiers.free.maxSourceBytes,
  tier: 'free',
  accept: ['png', 'jpg', 'pdf', 'wav'],
  allowPrivate: true,
  timeoutMs: 5_000,
  ...extra,
});

/** Failures must leave nothing behind in the workspace. */
async function workspaceFiles(): Promise<string[]> {
  return readdir(await workspace.dir());
}

let routes = 0;
/** A fresh path per route, so tests never share one. */
function path(name: string): string {
  routes += 1;
  return `/${routes}/${name}`;
}

describe('downloadSource: a good answer', () => {
  it.each([
    ['png', () => png, 'picture.pdf', 'text/plain'],
    ['pdf', () => pdf, 'report.png', 'image/png'],
    ['wav', () => wav, 'tone', 'application/octet-stream'],
  ])(
    'saves and sniffs a %s, trusting neither the name nor Content-Type',
    async (format, body, name, type) => {
      const url = server.serve(path(name), body(), type);
      const source = await downloadSource(url, options());
      expect(source.format).toBe(format);
      expect(source.sizeBytes).toBe(body().length);
      expect(source.baseName).toBe(name.replace(/\.\w+$/, ''));
      expect(dirname(source.path)).toBe(await workspace.dir());
      expect(await readFile(source.path)).toEqual(body());
    },
  );

  it('writes under the given file name, so a batch can keep several sources', async () => {
    const first = await downloadSource(server.serve(path('a.png'), png), options({ fileName: 'source-0' }));
    const second = await downloadSource(server.serve(path('b.pdf'), pdf), options({ fileName: 'source-1' }));
    expect((await workspaceFiles()).sort()).toEqual(['source-0', 'source-1']);
    expect([first.format, second.format]).toEqual(['png', 'pdf']);
  });

  it('shows every byte to onChunk and skips sniffing for accept "any"', async () => {
    const body = randomBytes(300_000);
    const url = server.route(path('blob.bin'), (_request, response) => {
      response.writeHead(200);
      for (let at = 0; at < body.length; at += 65_536) response.write(body.subarray(at, at + 65_536));
      response.end();
    });
    const hash = createHash('sha256');
    const source = await downloadSource(
      url,
      options({ accept: 'any', onChunk: (chunk) => hash.update(chunk) }),
    );
    expect(source.format).toBeUndefined();
    expect(source.sizeBytes).toBe(body.length);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('takes a source of exactly the limit, chunked without a length', async () => {
    const url = server.route(path('exact.png'), (_request, response) => {
      response.writeHead(200);
      response.write(png);
      response.end(Buffer.alloc(1000 - png.length));
    });
    const source = await downloadSource(url, options({ maxBytes: 1000 }));
    expect(source.sizeBytes).toBe(1000);
  });

  it('follows SOURCE_ALLOW_PRIVATE when allowPrivate is not given (the tests set it true)', async () => {
    const { allowPrivate: _unset, ...rest } = options();
    const source = await downloadSource(server.serve(path('x.png'), png), rest);
    expect(source.format).toBe('png');
  });
});

describe('downloadSource: refusals', () => {
  it.each(['ftp://127.0.0.1/a.png', 'not a url', 'http://user:pw@127.0.0.1/a.png'])(
    'refuses %j as source_invalid_url, naming the field',
    async (url) => {
      const error = await failure(downloadSource(url, options({ field: 'sources[2]' })));
      expect(error.code).toBe('source_invalid_url');
      expect(error.message).toContain('sources[2]');
    },
  );

  it.each([301, 302, 303, 307, 308])('does not follow a %d redirect', async (status) => {
    const target = vi.fn((_request, response) => response.writeHead(200).end(png));
    const to = server.route(path('target.png'), target);
    const url = server.route(path('moved.png'), (_request, response) => {
      response.writeHead(status, { Location: to }).end();
    });
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_redirect');
    expect(error.message).toContain(String(status));
    expect(target).not.toHaveBeenCalled();
    expect(await workspaceFiles()).toEqual([]);
  });

  it.each([404, 500, 204, 206, 403])('refuses status %d, quoting it', async (status) => {
    const url = server.route(path('status.png'), (_request, response) => {
      response.writeHead(status).end(status === 204 ? undefined : png);
    });
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_bad_status');
    expect(error.message).toContain(`HTTP ${status}`);
    expect(await workspaceFiles()).toEqual([]);
  });

  it.each([
    [25_000_000, 'free', 'The pro tier accepts sources up to 200 MB'],
    [300_000_000, 'free', 'The enterprise tier accepts sources up to 1 GB'],
    [300_000_000, 'pro', 'The enterprise tier accepts sources up to 1 GB'],
    [2_000_000_000, 'enterprise', 'No tier accepts'],
  ] as const)(
    'refuses a Content-Length of %d on %s before reading, naming the tier that lifts it',
    async (length, tier, lift) => {
      const url = server.route(path('huge.png'), (_request, response) => {
        // Declares a size and then never sends a byte: only a refusal from the head ends this quickly.
        response.writeHead(200, { 'Content-Length': length });
        response.flushHeaders();
      });
      const started = performance.now();
      const error = await failure(
        downloadSource(url, options({ tier, maxBytes: tiers[tier].maxSourceBytes })),
      );
      expect(error.code).toBe('source_too_large');
      expect(statusOf(error)).toBe(413);
      expect(error.message).toContain(`of the ${tier} tier`);
      expect(error.message).toContain(lift);
      // Waiting for the body would end in source_timeout after 5 s: the code above proves the refusal
      // came from the head, and the bound below is one no machine reaches by slowness alone.
      expect(performance.now() - started).toBeLessThan(29_000);
      expect(await workspaceFiles()).toEqual([]);
    },
  );

  it('cuts off a body without a length once it passes the limit', async () => {
    let written = 0;
    const url = server.route(path('endless.png'), (request, response) => {
      response.writeHead(200);
      response.write(png);
      const timer = setInterval(() => {
        written += 4096;
        response.write(Buffer.alloc(4096));
      }, 2);
      request.socket.once('close', () => clearInterval(timer));
    });
    const error = await failure(downloadSource(url, options({ maxBytes: 50_000 })));
    expect(error.code).toBe('source_too_large');
    expect(error.message).toContain('50 kB limit of the free tier');
    expect(written).toBeLessThan(2_000_000);
    expect(await workspaceFiles()).toEqual([]);
  });

  it('refuses one byte over the limit', async () => {
    const url = server.route(path('over.png'), (_request, response) => {
      response.writeHead(200);
      response.write(png);
      response.end(Buffer.alloc(1001 - png.length));
    });
    expect((await failure(downloadSource(url, options({ maxBytes: 1000 })))).code).toBe('source_too_large');
    expect(await workspaceFiles()).toEqual([]);
  });

  it('names what it found and what the operation accepts', async () => {
    const error = await failure(
      downloadSource(server.serve(path('doc.png'), pdf), options({ accept: ['png', 'jpg'] })),
    );
    expect(error.code).toBe('unsupported_input_format');
    expect(error.message).toContain('pdf');
    expect(error.message).toContain('png, jpg');
    expect(await workspaceFiles()).toEqual([]);
  });

  it('refuses bytes in no format it reads', async () => {
    const url = server.serve(path('photo.png'), 'definitely not a picture', 'image/png');
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('unsupported_input_format');
    expect(error.message).toContain('no format');
    expect(await workspaceFiles()).toEqual([]);
  });
});

describe('downloadSource: time and connection failures', () => {
  it('answers 504 when nothing comes back in time', async () => {
    const url = server.route(path('silent.png'), () => {});
    const started = performance.now();
    const error = await failure(downloadSource(url, options({ timeoutMs: 300 })));
    expect(error.code).toBe('source_timeout');
    expect(statusOf(error)).toBe(504);
    // The server never answers: only the 300 ms deadline ends the wait this side of the route's limit.
    expect(performance.now() - started).toBeLessThan(29_000);
    expect(await workspaceFiles()).toEqual([]);
  });

  it('answers 504 when the head arrives and the body stalls', async () => {
    const url = server.route(path('stall.png'), (_request, response) => {
      response.writeHead(200, { 'Content-Length': 10_000 });
      response.write(png);
    });
    const error = await failure(downloadSource(url, options({ timeoutMs: 300 })));
    expect(error.code).toBe('source_timeout');
    expect(await workspaceFiles()).toEqual([]);
  });

  it('answers 504 for a body that trickles on past the deadline', async () => {
    const url = server.route(path('drip.png'), (request, response) => {
      response.writeHead(200);
      response.write(png);
      const timer = setInterval(() => response.write(Buffer.alloc(1)), 20);
      request.socket.once('close', () => clearInterval(timer));
    });
    const error = await failure(downloadSource(url, options({ timeoutMs: 400 })));
    expect(error.code).toBe('source_timeout');
    expect(await workspaceFiles()).toEqual([]);
  });

  it('answers source_unreachable for a closed port', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await failure(downloadSource(`http://127.0.0.1:${port}/a.png`, options()));
    expect(error.code).toBe('source_unreachable');
    expect(error.message).toBe('127.0.0.1 refused the connection.');
  });

  it('answers source_unreachable when the connection breaks mid-body', async () => {
    const url = server.route(path('broken.png'), (_request, response) => {
      response.writeHead(200, { 'Content-Length': 100_000 });
      response.write(png, () => response.socket?.destroy());
    });
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_unreachable');
    expect(await workspaceFiles()).toEqual([]);
  });

  it('answers source_unreachable for a server that does not speak HTTP', async () => {
    const raw = createServer((socket) => socket.resume().end('SSH-2.0-OpenSSH_9.6\r\n'));
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = raw.address() as AddressInfo;
      const error = await failure(downloadSource(`http://127.0.0.1:${port}/a.png`, options()));
      expect(error.code).toBe('source_unreachable');
      expect(error.message).toBe('127.0.0.1 did not answer with valid HTTP.');
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it('stops when the caller aborts, with the caller’s reason', async () => {
    const url = server.route(path('slow.png'), () => {});
    const controller = new AbortController();
    const reason = new Error('request ended');
    setTimeout(() => controller.abort(reason), 100);
    const error = await downloadSource(url, options({ signal: controller.signal })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBe(reason);
    expect(await workspaceFiles()).toEqual([]);
  });
});

describe('downloadSource: addresses', () => {
  it('refuses the loopback fixture when private addresses are not allowed, without connecting', async () => {
    const hit = vi.fn((_request, response) => response.writeHead(200).end(png));
    const url = server.route(path('local.png'), hit);
    const error = await failure(downloadSource(url, options({ allowPrivate: false })));
    expect(error.code).toBe('source_blocked_address');
    expect(hit).not.toHaveBeenCalled();
    expect(await workspaceFiles()).toEqual([]);
  });

  it('refuses a name with one private address among public ones, resolving once', async () => {
    const hit = vi.fn((_request, response) => response.writeHead(200).end(png));
    const port = new URL(server.route(path('mixed.png'), hit)).port;
    const lookup = vi.fn<HostLookup>(async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const error = await failure(
      downloadSource(`http://files.example.test:${port}/mixed.png`, options({ allowPrivate: false, lookup })),
    );
    expect(error.code).toBe('source_blocked_address');
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(hit).not.toHaveBeenCalled();
  });

  it('connects to the address it checked, never to a second answer for the name', async () => {
    const seen: Array<string | undefined> = [];
    const route = path('pinned.png');
    const port = new URL(
      server.route(route, (request, response) => {
        seen.push(request.headers.host, request.headers['accept-encoding']);
        response.writeHead(200).end(png);
      }),
    ).port;
    // A rebinding resolver: the loopback fixture first, then an address nothing listens on.
    const answers = ['127.0.0.1', '10.255.255.1'];
    const lookup = vi.fn<HostLookup>(async () => [{ address: answers.shift() ?? '10.255.255.1', family: 4 }]);
    const source = await downloadSource(`http://files.example.test:${port}${route}`, options({ lookup }));
    expect(source.format).toBe('png');
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(seen).toEqual([`files.example.test:${port}`, 'identity']);
  });

  it('speaks TLS to the pinned address with the host name as SNI, and checks the certificate', async () => {
    const names: string[] = [];
    const tls = createHttpsServer(
      {
        key: await readFile(join(fixtures, 'source-tls.key')),
        cert: await readFile(join(fixtures, 'source-tls.crt')),
        SNICallback: (name, done) => {
          names.push(name);
          done(null);
        },
      },
      (_request, response) => response.writeHead(200).end(png),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tls.address() as AddressInfo;
      const lookup: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];
      const error = await failure(
        downloadSource(`https://files.example.test:${port}/a.png`, options({ lookup })),
      );
      // The certificate is self-signed, so a client that checks certificates must refuse it.
      expect(error.code).toBe('source_unreachable');
      expect(error.message).toBe('The TLS certificate of files.example.test was not accepted.');
      expect(names).toEqual(['files.example.test']);
      expect(await workspaceFiles()).toEqual([]);
    } finally {
      tls.closeAllConnections();
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });
});
