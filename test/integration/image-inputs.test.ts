import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bmpVariants, damagedPngs, type ImageCase, tallAnimations, twelveBitJpeg } from '../corpus/images.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { ImageFixtures } from '../unit/image/fixtures.ts';

/** A key with room for every request of this file (the free tier allows 10 a minute). */
const key = { 'x-api-key': SHARED_KEYS.enterprise };

/** Files met in the wild that the service once refused or failed on, through the local gateway. */
describe('real-world image inputs through the local gateway over real HTTP', () => {
  const fixtures = new ImageFixtures();
  const sources = new FixtureServer();
  let gateway: RunningGateway;
  let bmps: ImageCase[];
  let pngs: ImageCase[];
  let animations: ImageCase[];
  const urlOf = (item: ImageCase, copy = 0) =>
    sources.serve(`/${copy}/${item.name.replace(/\W+/g, '-')}.${item.format}`, item.bytes);

  beforeAll(async () => {
    await fixtures.open();
    await sources.start();
    bmps = await bmpVariants(fixtures.path(''));
    pngs = await damagedPngs();
    animations = await tallAnimations(fixtures.path(''));
    gateway = sharedGateway();
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
    await sources.stop();
    await fixtures.close();
  }, 180_000);

  const post = (route: string, body: Record<string, unknown>) =>
    postJson(`${gateway.url}/${route}`, body, key);

  it('converts a BMP of every header variant (OS/2 core and 2.x, Windows 40 to 124 bytes) with its pixels', async () => {
    for (const bmp of bmps) {
      const response = await post('image-convert', { sourceUrl: urlOf(bmp), outputFormat: 'png' });
      expect(response.status, `${bmp.name}: ${await response.clone().text()}`).toBe(200);
      const { data, info } = await sharp(Buffer.from(await response.arrayBuffer()))
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect([info.width, info.height], bmp.name).toEqual(bmp.size);
      if (bmp.size?.[0] === 1) expect([...data.subarray(0, 3)], bmp.name).toEqual([0xc0, 0x40, 0x20]);
      else {
        // Top-left red, bottom-right white: rows are read the right way up whatever the header.
        expect([...data.subarray(0, 3)], bmp.name).toEqual([255, 0, 0]);
        expect([...data.subarray(data.length - info.channels)].slice(0, 3), bmp.name).toEqual([
          255, 255, 255,
        ]);
      }
    }
  }, 180_000);

  it('answers 400 invalid_source_file to every damaged PNG, also with 8 requests at once', async () => {
    const damaged = pngs.filter((png) => !png.size && !png.name.includes('ancillary'));
    expect(damaged.length).toBeGreaterThanOrEqual(6);
    for (const png of damaged) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, async (_, copy) => {
          const response = await post('image-convert', { sourceUrl: urlOf(png, copy), outputFormat: 'webp' });
          return {
            status: response.status,
            body: (await response.json()) as { error: string; message: string },
          };
        }),
      );
      for (const answer of answers) {
        expect(answer.status, `${png.name}: ${answer.body.message}`).toBe(400);
        expect(answer.body.error).toBe('invalid_source_file');
      }
    }
  }, 180_000);

  it('keeps every frame of an animation taller than 16 383 px stacked when converting to webp', async () => {
    for (const animation of animations) {
      const response = await post('image-convert', { sourceUrl: urlOf(animation), outputFormat: 'webp' });
      expect(response.status, `${animation.name}: ${await response.clone().text()}`).toBe(200);
      const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.pageHeight ?? meta.height, meta.pages], animation.name).toEqual([
        'webp',
        13,
        169,
        97,
      ]);
    }
  }, 180_000);

  it('answers 400 invalid_source_file naming 12-bit JPEG on convert and resize', async () => {
    const url = urlOf(twelveBitJpeg());
    for (const [route, body] of [
      ['image-convert', { outputFormat: 'png' }],
      ['image-resize', { width: 16 }],
    ] as const) {
      const response = await post(route, { sourceUrl: url, ...body });
      expect(response.status, route).toBe(400);
      expect(await response.json()).toMatchObject({
        error: 'invalid_source_file',
        message: expect.stringContaining('12-bit JPEG is not supported'),
      });
    }
  }, 180_000);
});
