import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { activeContentIn, expandPdf, hostilePdf, WEB_LINK } from '../support/hostile-pdf.ts';

/**
 * Every route that writes a PDF, sent a PDF that carries every kind of active content, through the
 * local gateway: what comes back is read by qpdf with object streams expanded.
 */
describe('PDF outputs carry no active content', () => {
  const fixtures = new FixtureServer();
  let gateway: RunningGateway;
  const key = { 'x-api-key': SHARED_KEYS.enterprise };
  let hostile: string;
  let other: string;

  beforeAll(async () => {
    await fixtures.start();
    const source = Buffer.from(await hostilePdf());
    // The check sees what it looks for: the source carries it all.
    expect(activeContentIn(source).length).toBeGreaterThan(10);
    hostile = fixtures.serve('/hostile.pdf', source, 'application/pdf');
    other = fixtures.serve('/other.pdf', source, 'application/pdf');
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    fixtures.serve('/picture.png', png, 'image/png');
    gateway = sharedGateway();
  });
  afterAll(async () => {
    await gateway.stop();
    await fixtures.stop();
  });

  const post = async (route: string, body: unknown) => {
    const response = await postJson(`${gateway.url}${route}`, body, key);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(response.status, Buffer.from(bytes).toString()).toBe(200);
    return { bytes, type: response.headers.get('content-type') };
  };

  it('/pdf-merge', async () => {
    const { bytes } = await post('/pdf-merge', { sources: [hostile, other] });
    expect(activeContentIn(bytes)).toEqual([]);
    expect(expandPdf(bytes)).toContain(WEB_LINK);
  });

  it('/pdf-split, one range: a PDF', async () => {
    const { bytes } = await post('/pdf-split', { sourceUrl: hostile, ranges: '1-2' });
    expect(activeContentIn(bytes)).toEqual([]);
    expect(expandPdf(bytes)).toContain(WEB_LINK);
  });

  it('/pdf-split, one file per page: every PDF in the ZIP', async () => {
    const { bytes, type } = await post('/pdf-split', { sourceUrl: hostile });
    expect(type).toBe('application/zip');
    const entries = Object.entries(unzipSync(bytes));
    expect(entries.map(([name]) => name)).toEqual(['hostile-1.pdf', 'hostile-2.pdf']);
    for (const [name, entry] of entries) expect(activeContentIn(entry), name).toEqual([]);
    expect(expandPdf(entries[0]![1])).toContain(WEB_LINK);
  });

  it('/pdf-compress, which keeps the outline and links to pages too', async () => {
    const { bytes } = await post('/pdf-compress', { sourceUrl: hostile, level: 'low' });
    expect(activeContentIn(bytes)).toEqual([]);
    const text = expandPdf(bytes);
    expect(text).toContain(WEB_LINK);
    expect(text).toMatch(/\/S \/GoTo\b/);
    expect(text).toContain('/Outlines');
  });

  it('/image-to-pdf', async () => {
    const { bytes } = await post('/image-to-pdf', { sources: [fixtures.url('/picture.png')] });
    expect(activeContentIn(bytes)).toEqual([]);
  });
});
