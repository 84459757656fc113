import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { ImageFixtures } from '../unit/image/fixtures.ts';

/** The shared gateway's key: the free tier's 10 requests a minute are shared by every file. */
const key = { 'x-api-key': SHARED_KEYS.enterprise };

describe('image routes through the local gateway over real HTTP', () => {
  const fixtures = new ImageFixtures();
  const sources = new FixtureServer();
  let gateway: RunningGateway;
  let photo: string;
  let heic: string;

  beforeAll(async () => {
    await fixtures.open();
    await sources.start();
    photo = sources.serve('/holiday/beach.png', await fixtures.pattern('png'), 'image/png');
    heic = sources.serve('/phone/IMG_0001.heic', await fixtures.pattern('heic'), 'image/heic');
    gateway = sharedGateway();
  });

  afterAll(async () => {
    await gateway.stop();
    await sources.stop();
    await fixtures.close();
  });

  it('streams a converted file with its type, length and name', async () => {
    const response = await postJson(
      `${gateway.url}/image-convert`,
      {
        sourceUrl: heic,
        outputFormat: 'webp',
        width: 32,
      },
      key,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(response.headers.get('content-disposition')).toBe('inline; filename="IMG_0001.webp"');
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('content-length')).toBe(String(body.length));
    const meta = await sharp(body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 32, 24]);
  });

  it('sends the sizes of an optimization', async () => {
    const response = await postJson(
      `${gateway.url}/image-optimize`,
      {
        sourceUrl: photo,
        outputFormat: 'avif',
      },
      key,
    );
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('x-output-size')).toBe(String(body.length));
    expect(Number(response.headers.get('x-original-size'))).toBeGreaterThanOrEqual(body.length);
  });

  it('answers metadata as JSON and refuses heic output with its own code', async () => {
    const metadata = await postJson(`${gateway.url}/image-metadata`, { sourceUrl: photo }, key);
    expect(await metadata.json()).toMatchObject({ format: 'png', width: 64, height: 48, animated: false });
    const refused = await postJson(
      `${gateway.url}/image-resize`,
      {
        sourceUrl: photo,
        width: 10,
        outputFormat: 'heic',
      },
      key,
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'unsupported_output_format' });
  });
});
