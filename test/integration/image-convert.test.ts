import { createServer } from 'node:net';
import { decodeIco } from 'icojs';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '#shared/errors.ts';
import { routes } from '#shared/routes.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';
import {
  bmpToPng,
  colourDistance,
  HEIGHT,
  ImageFixtures,
  quadrantColours,
  quadrants,
  WIDTH,
} from '../unit/image/fixtures.ts';

/** A key with room for every request of this file (the free tier allows 10 a minute). */
const key = { 'x-api-key': 'image-convert-key' };

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('POST /image-convert through the local gateway over real HTTP', () => {
  const fixtures = new ImageFixtures();
  const sources = new FixtureServer();
  const url: Record<string, string> = {};
  let gateway: RunningGateway;
  /** The same gateway as deployed: loopback sources refused. */
  let strictGateway: RunningGateway;

  beforeAll(async () => {
    await fixtures.open();
    await sources.start();
    for (const format of ['png', 'jpg', 'webp', 'gif', 'tiff', 'bmp', 'heic', 'avif', 'svg'] as const) {
      url[format] = sources.serve(`/pattern/quad.${format}`, await fixtures.pattern(format));
    }
    url.animation = sources.serve('/anim/spin.gif', await fixtures.animation('gif'));
    const png = await fixtures.pattern('png');
    url.text = sources.serve('/notes.png', 'just some words, not a picture\n', 'image/png');
    url.broken = sources.serve('/broken.png', png.subarray(0, Math.floor(png.length / 2)));
    url.redirect = sources.route('/moved.png', (_request, response) => {
      response.writeHead(302, { Location: url.png }).end();
    });
    url.huge = sources.route('/huge.png', (_request, response) => {
      response.writeHead(200, { 'Content-Length': String(2_000_000_000) }).end();
    });
    url.stalling = sources.route('/slow.png', (_request, response) => {
      response.writeHead(200, { 'Content-Length': String(png.length) });
      response.write(png.subarray(0, 16));
    });
    url.closed = `http://127.0.0.1:${await closedPort()}/quad.png`;
    [gateway, strictGateway] = await Promise.all([
      startLocalGateway({
        SOURCE_ALLOW_PRIVATE: 'true',
        SOURCE_TIMEOUT_MS: '500',
        API_KEYS: 'image-convert-key:enterprise:100000',
      }),
      startLocalGateway({ SOURCE_ALLOW_PRIVATE: 'false' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(), strictGateway?.stop()]);
    await sources.stop();
    await fixtures.close();
  });

  const convert = (body: Record<string, unknown>) => postJson(`${gateway.url}/image-convert`, body, key);

  const fileOf = async (response: Response) => {
    expect(response.status, await response.clone().text()).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  };

  /** Every quadrant of the pattern within `tolerance` of its colour, read by an independent decoder for BMP. */
  const expectPattern = async (png: Buffer, tolerance: number) => {
    const colours = await quadrantColours(png);
    for (const [quadrant, expected] of Object.entries(quadrants)) {
      const actual = colours[quadrant as keyof typeof quadrants];
      expect(colourDistance(actual, expected), `${quadrant}: ${actual}`).toBeLessThanOrEqual(tolerance);
    }
  };

  it.each([
    // input, output, the type it is served as, what sharp calls it, tolerance of the lossy ones
    ['png', 'jpg', 'image/jpeg', 'jpeg', 24],
    ['heic', 'png', 'image/png', 'png', 24],
    ['svg', 'webp', 'image/webp', 'webp', 24],
    ['bmp', 'avif', 'image/avif', 'heif', 32],
    ['gif', 'tiff', 'image/tiff', 'tiff', 8],
    ['avif', 'gif', 'image/gif', 'gif', 32],
    ['webp', 'bmp', 'image/bmp', undefined, 8],
    ['tiff', 'jpg', 'image/jpeg', 'jpeg', 24],
  ] as const)(
    '%s → %s keeps the size and the four colours',
    async (input, output, type, decoded, tolerance) => {
      const response = await convert({ sourceUrl: url[input], outputFormat: output });
      const file = await fileOf(response);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('content-disposition')).toBe(`inline; filename="quad.${output}"`);
      // sharp does not read BMP; ffmpeg decodes it instead.
      const png = decoded ? file : await bmpToPng(fixtures, file);
      const meta = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual([decoded ?? 'png', WIDTH, HEIGHT]);
      await expectPattern(png, tolerance);
    },
  );

  it('resizes while converting', async () => {
    const file = await fileOf(await convert({ sourceUrl: url.jpg, outputFormat: 'png', width: 32 }));
    const meta = await sharp(file).metadata();
    expect([meta.width, meta.height]).toEqual([32, 24]);
    await expectPattern(file, 24);
  });

  it('keeps the frames of an animated GIF in WebP', async () => {
    const file = await fileOf(await convert({ sourceUrl: url.animation, outputFormat: 'webp' }));
    const meta = await sharp(file, { animated: true }).metadata();
    expect([meta.format, meta.pages, meta.width, meta.pageHeight]).toEqual(['webp', 3, 32, 24]);
    const frames = await Promise.all(
      [0, 1, 2].map(async (page) => (await sharp(file, { page }).raw().toBuffer()).subarray(0, 3)),
    );
    const colours: [number, number, number][] = [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ];
    frames.forEach((pixel, index) => {
      expect(colourDistance([pixel[0]!, pixel[1]!, pixel[2]!], colours[index]!)).toBeLessThanOrEqual(8);
    });
  });

  it('writes one ICO entry per asked size, each holding the image', async () => {
    const response = await convert({ sourceUrl: url.png, outputFormat: 'ico', icoSizes: [48, 16, 32] });
    const file = await fileOf(response);
    expect(response.headers.get('content-type')).toBe('image/x-icon');
    expect(imageSize(file).images?.map((entry) => [entry.width, entry.height])).toEqual([
      [16, 16],
      [32, 32],
      [48, 48],
    ]);
    const entries = await decodeIco(file, 'image/png');
    const largest = Buffer.from(entries.find((entry) => entry.width === 48)!.buffer);
    // 64 × 48 contained in 48 × 48 is 48 × 36, centred: 6 px bands above and below.
    await expectPattern(
      await sharp(largest).extract({ left: 0, top: 6, width: 48, height: 36 }).png().toBuffer(),
      24,
    );
  });

  it('traces to SVG paths that render the pattern again', async () => {
    const response = await convert({ sourceUrl: url.png, outputFormat: 'svg' });
    const file = await fileOf(response);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    const text = file.toString('utf8');
    expect(text).toMatch(/<path /);
    expect(text).not.toMatch(/<image/);
    const rendered = await sharp(file).png().toBuffer();
    const meta = await sharp(rendered).metadata();
    expect([meta.width, meta.height]).toEqual([WIDTH, HEIGHT]);
    await expectPattern(rendered, 32);
  });

  const errorCases: [string, () => Promise<Response>, number, ErrorCode, RegExp][] = [
    [
      'an unknown output format',
      () => convert({ sourceUrl: url.png, outputFormat: 'pdf' }),
      400,
      'validation_failed',
      /outputFormat/,
    ],
    [
      'HEIC output',
      () => convert({ sourceUrl: url.png, outputFormat: 'heic' }),
      400,
      'unsupported_output_format',
      /avif.*webp|webp.*avif/,
    ],
    [
      'text bytes',
      () => convert({ sourceUrl: url.text, outputFormat: 'png' }),
      400,
      'unsupported_input_format',
      /no format this service reads/,
    ],
    [
      'a PNG cut in half',
      () => convert({ sourceUrl: url.broken, outputFormat: 'webp' }),
      400,
      'invalid_source_file',
      /damaged/,
    ],
    [
      'an ftp URL',
      () => convert({ sourceUrl: 'ftp://example.org/a.png', outputFormat: 'png' }),
      400,
      'source_invalid_url',
      /http/,
    ],
    [
      'a redirect',
      () => convert({ sourceUrl: url.redirect, outputFormat: 'png' }),
      400,
      'source_redirect',
      /302/,
    ],
    [
      'a missing file',
      () => convert({ sourceUrl: sources.url('/missing.png'), outputFormat: 'png' }),
      400,
      'source_bad_status',
      /404/,
    ],
    [
      'a loopback source where private addresses are refused',
      () => postJson(`${strictGateway.url}/image-convert`, { sourceUrl: url.png, outputFormat: 'png' }),
      400,
      'source_blocked_address',
      /./,
    ],
    [
      'a closed port',
      () => convert({ sourceUrl: url.closed, outputFormat: 'png' }),
      400,
      'source_unreachable',
      /./,
    ],
    [
      'a source that stalls',
      () => convert({ sourceUrl: url.stalling, outputFormat: 'png' }),
      504,
      'source_timeout',
      /0\.5 s/,
    ],
    [
      'a source larger than any tier takes',
      () => convert({ sourceUrl: url.huge, outputFormat: 'png' }),
      413,
      'source_too_large',
      /2 GB/,
    ],
    [
      'a body that is not JSON',
      () => postJson(`${gateway.url}/image-convert`, '{"sourceUrl": ', key),
      400,
      'invalid_json',
      /JSON/,
    ],
    [
      'a body that is not JSON by its type',
      () =>
        fetch(`${gateway.url}/image-convert`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/plain', ...key },
          body: JSON.stringify({ sourceUrl: url.png, outputFormat: 'png' }),
        }),
      415,
      'unsupported_media_type',
      /application\/json/,
    ],
    [
      'a body over 1 MiB',
      () => convert({ sourceUrl: url.png, outputFormat: 'png', padding: 'x'.repeat(1024 * 1024) }),
      413,
      'request_too_large',
      /1048576 bytes/,
    ],
  ];

  it.each(errorCases)('answers %s with its code', async (_what, send, status, code, message) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe(code);
    expect(body.message).toMatch(message);
  });

  it('covers every error code of the route that a request body can cause', () => {
    const route = routes.find((candidate) => candidate.path === '/image-convert')!;
    const bodyGate: ErrorCode[] = [
      'invalid_json',
      'unsupported_media_type',
      'request_too_large',
      'validation_failed',
    ];
    const tested = new Set(errorCases.map(([, , , code]) => code));
    expect([...route.errors, ...bodyGate].filter((code) => !tested.has(code))).toEqual([]);
  });
});
