import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blurChain, nestedSvg, svgWithRaster, useAmplification } from '../corpus/svg-bounds.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

const key = { 'x-api-key': SHARED_KEYS.enterprise };

/**
 * SVGs that buy unbounded work from a few kilobytes are refused before rendering (contract,
 * "Resource bounds"), with 400 invalid_source_file naming the limit, on every route that renders.
 */
describe('SVG render bounds through the local gateway over real HTTP', () => {
  const sources = new FixtureServer();
  let gateway: RunningGateway;
  const url: Record<string, string> = {};

  beforeAll(async () => {
    await sources.start();
    url.raster = sources.serve('/raster.svg', svgWithRaster(12_000), 'image/svg+xml');
    url.nested = sources.serve('/nested.svg', nestedSvg(3, 12_000), 'image/svg+xml');
    url.uses = sources.serve('/uses.svg', useAmplification(10, 10), 'image/svg+xml');
    url.blurs = sources.serve('/blurs.svg', blurChain(60, 2000), 'image/svg+xml');
    url.shadow = sources.serve('/shadow.svg', blurChain(2, 200), 'image/svg+xml');
    gateway = sharedGateway();
  });

  afterAll(async () => {
    await gateway?.stop();
    await sources.stop();
  });

  const refusal = async (route: string, body: Record<string, unknown>) => {
    const response = await postJson(`${gateway.url}/${route}`, body, key);
    return { status: response.status, body: (await response.json()) as { error: string; message: string } };
  };

  it('refuses a 64 × 64 SVG holding a 12 000² data: PNG on convert, resize and image-to-pdf', async () => {
    for (const [route, body] of [
      ['image-convert', { sourceUrl: url.raster, outputFormat: 'png' }],
      ['image-resize', { sourceUrl: url.raster, width: 32 }],
      ['image-to-pdf', { sources: [url.raster] }],
      ['image-convert', { sourceUrl: url.nested, outputFormat: 'webp' }],
    ] as const) {
      const answer = await refusal(route, body);
      expect(answer.status, `${route}: ${answer.body.message}`).toBe(400);
      expect(answer.body.error).toBe('invalid_source_file');
      expect(answer.body.message).toContain('at most 100 megapixels');
    }
    // Three functions start cold in the gateway's worker processes: room for a loaded machine.
  }, 180_000);

  it('refuses 10 levels of 10 <use> references with 400, not 500', async () => {
    const answer = await refusal('image-convert', { sourceUrl: url.uses, outputFormat: 'png' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: 'invalid_source_file',
      message: expect.stringMatching(/draws more than 500000 elements/),
    });
  });

  it('refuses a blur chain over its filter-work limit, and renders a small filter', async () => {
    const answer = await refusal('image-convert', { sourceUrl: url.blurs, outputFormat: 'png' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(
      /60 filter primitives over a 2000 × 2000 canvas .* at most 40 are accepted/,
    );
    const shadow = await postJson(
      `${gateway.url}/image-convert`,
      { sourceUrl: url.shadow, outputFormat: 'png' },
      key,
    );
    expect(shadow.status).toBe(200);
  });
});
