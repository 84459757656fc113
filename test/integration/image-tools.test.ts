import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * /image-transform, /image-watermark, /image-metadata's placeholders, /qr-code, /barcode and
 * /barcode-read through the local gateway over real HTTP. Sources are drawn by ImageMagick, zint and
 * Pillow; answers are judged by ImageMagick's result of the same operation and read back by zbar.
 */

const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';
let count = 0;
const urls: Record<string, string> = {};

const post = (path: string, body: unknown) =>
  postJson(`${gateway.url}${path}`, body, { 'x-api-key': SHARED_KEYS.enterprise });

beforeAll(async () => {
  gateway = sharedGateway();
  dir = await mkdtemp(join(tmpdir(), 'image-tools-'));
  const picture = join(dir, 'picture.png');
  await run('convert', [
    ...['-size', '120x80', 'gradient:red-blue', '-fill', 'yellow', '-draw', 'rectangle 10,10 50,30'],
    ...['-depth', '8', picture],
  ]);
  const qr = join(dir, 'zint-qr.png');
  await run('zint', ['-b', 'QRCODE', '-d', 'made by zint', '--scale=4', '-o', qr]);
  const pdf = join(dir, 'codes.pdf');
  // Pillow puts the zint code on a PDF page of its own, twice: pages 1 and 2.
  await run('/usr/bin/python3', [
    '-c',
    'import sys; from PIL import Image; a = Image.open(sys.argv[1]).convert("RGB"); a.save(sys.argv[2], save_all=True, append_images=[a], resolution=150)',
    qr,
    pdf,
  ]);
  await sources.start();
  urls.picture = sources.serve('/picture.png', await readFile(picture));
  urls.qr = sources.serve('/qr.png', await readFile(qr));
  urls.pdf = sources.serve('/codes.pdf', await readFile(pdf));
  urls.text = sources.serve('/notes.txt', Buffer.from('no image here\n'));
  urls.picturePath = picture;
}, 60_000);

afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

async function saved(response: Response, type: string): Promise<string> {
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get('content-type')).toBe(type);
  count += 1;
  const path = join(dir, `answer-${count}.${type.split('/')[1]}`);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

async function difference(a: string, b: string): Promise<number> {
  const result = await run('compare', ['-metric', 'RMSE', a, b, 'null:']).catch(
    (error: { stderr: string }) => error,
  );
  return Number(/\(([\d.e-]+)\)/.exec(result.stderr)?.[1] ?? Number.NaN);
}

async function errorOf(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { error: string };
  return [response.status, body.error];
}

describe('/image-transform', () => {
  it('rotates, crops and flips in one request as ImageMagick does', async () => {
    const path = await saved(
      await post('/image-transform', {
        sourceUrl: urls.picture,
        operations: [
          { op: 'rotate', angle: 90 },
          { op: 'crop', left: 0, top: 0, width: 50, height: 60 },
          { op: 'flip', direction: 'horizontal' },
        ],
      }),
      'image/png',
    );
    const reference = join(dir, 'reference.png');
    await run('convert', [
      urls.picturePath!,
      '-rotate',
      '90',
      '-crop',
      '50x60+0+0',
      '+repage',
      '-flop',
      reference,
    ]);
    expect(await difference(path, reference)).toBeLessThanOrEqual(0.001);
  });

  it('blurs into a JPEG within 0.03 RMSE of ImageMagick’s -blur', async () => {
    const path = await saved(
      await post('/image-transform', {
        sourceUrl: urls.picture,
        operations: [{ op: 'blur', sigma: 3 }],
        outputFormat: 'jpg',
        quality: 95,
      }),
      'image/jpeg',
    );
    const reference = join(dir, 'blurred.png');
    await run('convert', [urls.picturePath!, '-blur', '0x3', reference]);
    expect(await difference(path, reference)).toBeLessThanOrEqual(0.03);
  });

  it('refuses an unknown operation and a box outside the image with 400 validation_failed', async () => {
    expect(
      await errorOf(
        await post('/image-transform', { sourceUrl: urls.picture, operations: [{ op: 'spin' }] }),
      ),
    ).toEqual([400, 'validation_failed']);
    expect(
      await errorOf(
        await post('/image-transform', {
          sourceUrl: urls.picture,
          operations: [{ op: 'crop', left: 500, top: 0, width: 10, height: 10 }],
        }),
      ),
    ).toEqual([400, 'validation_failed']);
  });

  it('refuses a source that is no image with 400 unsupported_input_format', async () => {
    expect(
      await errorOf(await post('/image-transform', { sourceUrl: urls.text, operations: [{ op: 'negate' }] })),
    ).toEqual([400, 'unsupported_input_format']);
  });
});

describe('/image-watermark', () => {
  it('stamps an image mark downloaded as a second source where asked', async () => {
    const path = await saved(
      await post('/image-watermark', {
        sourceUrl: urls.picture,
        imageUrl: urls.qr,
        position: 'northwest',
        margin: 0,
        scale: 0.5,
        opacity: 1,
      }),
      'image/png',
    );
    // The QR code, 60 px wide in the top-left corner, is read back by zbar.
    const corner = join(dir, 'corner.png');
    await run('convert', [path, '-crop', '60x60+0+0', '+repage', '-scale', '400%', corner]);
    expect((await run('zbarimg', ['-q', '--raw', corner])).stdout.trim()).toBe('made by zint');
  });

  it('stamps a text; text and imageUrl together are refused', async () => {
    await saved(
      await post('/image-watermark', { sourceUrl: urls.picture, text: 'Ünïcode 日本', opacity: 0.8 }),
      'image/png',
    );
    expect(
      await errorOf(
        await post('/image-watermark', { sourceUrl: urls.picture, text: 'a', imageUrl: urls.qr }),
      ),
    ).toEqual([400, 'validation_failed']);
  });
});

describe('/image-metadata placeholder', () => {
  it('adds blurhash, thumbhash and dominantColor', async () => {
    const response = await post('/image-metadata', { sourceUrl: urls.picture, placeholder: true });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.width).toBe(120);
    expect(body.blurhash).toMatch(/^[0-9A-Za-z#$%*+,.:;=?@[\]^_{|}~-]{28}$/);
    expect(typeof body.thumbhash).toBe('string');
    expect(body.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe('codes', () => {
  it('/qr-code answers a PNG zbar reads back exactly', async () => {
    const text = 'https://example.com/order/1234?ü';
    const path = await saved(await post('/qr-code', { text, size: 256, errorCorrection: 'Q' }), 'image/png');
    expect((await run('zbarimg', ['-q', '--raw', '-Sbinary', path])).stdout).toBe(text);
  });

  it('/barcode answers an EAN-13 zbar reads back, and refuses a letter with 400 invalid_input', async () => {
    const path = await saved(await post('/barcode', { text: '590123412345', type: 'ean13' }), 'image/png');
    expect((await run('zbarimg', ['-q', path])).stdout.trim()).toBe('EAN-13:5901234123457');
    expect(await errorOf(await post('/barcode', { text: '59012341234A', type: 'ean13' }))).toEqual([
      400,
      'invalid_input',
    ]);
  });

  it('/barcode-read reads a code drawn by zint in an image and on PDF pages', async () => {
    const image = await post('/barcode-read', { sourceUrl: urls.qr });
    expect(image.status).toBe(200);
    const { codes } = (await image.json()) as { codes: { type: string; text: string; page?: number }[] };
    expect(codes.map((code) => [code.type, code.text])).toEqual([['qrcode', 'made by zint']]);
    const pdf = await post('/barcode-read', { sourceUrl: urls.pdf });
    expect(pdf.status).toBe(200);
    const pages = (await pdf.json()) as { codes: { type: string; text: string; page?: number }[] };
    expect(pages.codes.map((code) => [code.page, code.text])).toEqual([
      [1, 'made by zint'],
      [2, 'made by zint'],
    ]);
    expect(await errorOf(await post('/barcode-read', { sourceUrl: urls.pdf, pages: '5' }))).toEqual([
      400,
      'invalid_range',
    ]);
  });
});
