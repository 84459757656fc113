import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as imageToPdf } from '#functions/image-to-pdf/handler.ts';
import { handler as pdfToImage } from '#functions/pdf-to-image/handler.ts';
import { imageInputFormats } from '#shared/source/formats.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { apiEvent, call } from '../support/lambda.ts';
import { ImageFixtures, quadrants } from '../unit/image/fixtures.ts';
import {
  colourAt,
  decodeImage,
  encryptedPdf,
  manyPagesPdf,
  near,
  pageColour,
  renderPage,
  textPdf,
  zipEntries,
} from '../unit/pdf/fixtures.ts';

const server = new FixtureServer();
const images = new ImageFixtures();
let photoJpeg: Buffer;

const pageSizes = async (bytes: Uint8Array): Promise<Array<[number, number]>> =>
  (await PDFDocument.load(bytes)).getPages().map((page) => {
    const { width, height } = page.getSize();
    return [Math.round(width * 100) / 100, Math.round(height * 100) / 100];
  });

/** The quadrant pattern's colours, read at the centre of each quadrant of a rendered page. */
function quadrantsOf(rendered: { width: number; height: number; data: Uint8Array }) {
  return [
    colourAt(rendered, 0.25, 0.25),
    colourAt(rendered, 0.75, 0.25),
    colourAt(rendered, 0.25, 0.75),
    colourAt(rendered, 0.75, 0.75),
  ];
}
const expectedQuadrants = [
  quadrants.topLeft,
  quadrants.topRight,
  quadrants.bottomLeft,
  quadrants.bottomRight,
];

beforeAll(async () => {
  await server.start();
  await images.open();
  const mixed = {
    pages: 3,
    sizes: [
      [300, 400],
      [300, 400],
      [600, 300],
    ] as Array<[number, number]>,
    rotations: [0, 90, 0],
  };
  server.serve('/pdf/slides.pdf', Buffer.from(await textPdf(mixed)));
  server.serve('/pdf/one.pdf', Buffer.from(await textPdf({ pages: 1 })));
  server.serve('/pdf/locked.pdf', Buffer.from(await encryptedPdf()));
  server.serve('/pdf/long.pdf', Buffer.from(await manyPagesPdf(300)));
  server.serve('/pdf/poster.pdf', Buffer.from(await textPdf({ pages: 1, sizes: [[14_000, 10_000]] })));
  // A small page, a poster that fits at a lower dpi, and a page too large at any dpi.
  server.serve(
    '/pdf/giant.pdf',
    Buffer.from(
      await textPdf({
        pages: 3,
        sizes: [
          [300, 400],
          [14_000, 10_000],
          [200_000, 200_000],
        ],
      }),
    ),
  );
  server.serve(
    '/pdf/garbage.pdf',
    Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(3000, 7), Buffer.from('%%EOF')]),
  );
  for (const format of imageInputFormats) server.serve(`/img/quad.${format}`, await images.pattern(format));
  // A photo stored sideways with EXIF orientation 6 (to be turned 90° clockwise), 300 dpi.
  photoJpeg = await sharp({ create: { width: 120, height: 60, channels: 3, background: '#c81e1e' } })
    .composite([
      { input: { create: { width: 60, height: 60, channels: 3, background: '#1e3cdc' } }, left: 60, top: 0 },
    ])
    .jpeg({ quality: 95 })
    .withMetadata({ orientation: 6, density: 300 })
    .toBuffer();
  server.serve('/img/sideways.jpg', photoJpeg);
  server.serve('/img/plain.jpg', await sharp(photoJpeg).rotate().jpeg().toBuffer());
  // Green on the left half, fully transparent on the right.
  const rgba = Buffer.alloc(80 * 40 * 4);
  for (let pixel = 0; pixel < 80 * 40; pixel += 1) {
    if (pixel % 80 < 40) rgba.set([0, 128, 0, 255], pixel * 4);
  }
  const alpha = await sharp(rgba, { raw: { width: 80, height: 40, channels: 4 } })
    .png()
    .toBuffer();
  server.serve('/img/half-clear.png', alpha);
});

afterAll(async () => {
  await server.stop();
  await images.close();
});

describe('POST /pdf-to-image', () => {
  it('renders every page to PNG at 150 dpi by default, in a ZIP', async () => {
    const answer = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/slides.pdf') }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/zip');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="slides.zip"');
    const entries = zipEntries(answer.body);
    expect(entries.map(([name]) => name)).toEqual(['slides-1.png', 'slides-2.png', 'slides-3.png']);
    const decoded = await Promise.all(entries.map(([, bytes]) => decodeImage(bytes)));
    expect(decoded.map((image) => [image.format, image.width, image.height])).toEqual([
      ['png', 625, 833],
      ['png', 833, 625],
      ['png', 1250, 625],
    ]);
    expect(near(colourAt(decoded[0]!, 0.25, 0.5), pageColour(1))).toBe(true);
    expect(near(colourAt(decoded[1]!, 0.5, 0.25), pageColour(2))).toBe(true); // turned 90°: the left half is on top
    expect(near(colourAt(decoded[2]!, 0.25, 0.5), pageColour(3))).toBe(true);
    expect(near(colourAt(decoded[2]!, 0.9, 0.1), [255, 255, 255])).toBe(true);
  });

  it('answers one image for one page, in the asked format and resolution', async () => {
    for (const [outputFormat, format, type] of [
      ['jpeg', 'jpeg', 'image/jpeg'],
      ['webp', 'webp', 'image/webp'],
    ]) {
      const answer = await call(
        pdfToImage,
        apiEvent({ sourceUrl: server.url('/pdf/slides.pdf'), outputFormat, dpi: 72, pages: '3' }),
      );
      expect(answer.headers['Content-Type']).toBe(type);
      expect(answer.headers['Content-Disposition']).toBe(
        `inline; filename="slides.${outputFormat === 'jpeg' ? 'jpg' : outputFormat}"`,
      );
      const image = await decodeImage(answer.body);
      expect([image.format, image.width, image.height]).toEqual([format, 600, 300]);
      expect(near(colourAt(image, 0.25, 0.5), pageColour(3), 20)).toBe(true);
    }
    const single = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/one.pdf'), dpi: 36 }));
    expect(single.headers['Content-Type']).toBe('image/png');
    expect(await sharp(single.body).metadata()).toMatchObject({ width: 150, height: 200, density: 36 });
  });

  it('renders chosen pages of a long document', async () => {
    const answer = await call(
      pdfToImage,
      apiEvent({ sourceUrl: server.url('/pdf/long.pdf'), pages: '299-, 7', dpi: 36 }),
    );
    expect(zipEntries(answer.body).map(([name]) => name)).toEqual([
      'long-7.png',
      'long-299.png',
      'long-300.png',
    ]);
  });

  it('refuses a page outside the document and a malformed one', async () => {
    const outside = await call(
      pdfToImage,
      apiEvent({ sourceUrl: server.url('/pdf/slides.pdf'), pages: '4' }),
    );
    expect(outside.json()).toEqual({
      error: 'invalid_range',
      message: 'pages: "4" is outside the document, which has 3 pages.',
    });
    const zero = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/slides.pdf'), pages: '0-2' }));
    expect(zero.json()).toEqual({
      error: 'invalid_range',
      message: 'pages: "0-2": pages are numbered from 1.',
    });
  });

  it('refuses a page too large for the dpi and names a dpi that fits', async () => {
    const answer = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/poster.pdf'), dpi: 150 }));
    expect(answer.statusCode).toBe(400);
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('validation_failed');
    expect(body.message).toMatch(/^dpi: page 1 .* use a dpi of at most 38\.$/);
    const fits = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/poster.pdf'), dpi: 38 }));
    expect(fits.statusCode).toBe(200);
  });

  it('names the dpi that fits every selected page', async () => {
    const answer = await call(
      pdfToImage,
      apiEvent({ sourceUrl: server.url('/pdf/giant.pdf'), dpi: 150, pages: '1-2' }),
    );
    expect(answer.json()).toEqual({
      error: 'validation_failed',
      message:
        'dpi: page 2 (14000 × 10000 pt) would be 607665278 pixels at 150 dpi, over the 40000000 pixel limit; use a dpi of at most 38.',
    });
  });

  it('refuses a page too large at the lowest dpi as a source that cannot be rendered', async () => {
    for (const dpi of [36, 150]) {
      const answer = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/giant.pdf'), dpi }));
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toEqual({
        error: 'invalid_source_file',
        message:
          "The PDF's page 3 (200000 × 200000 pt) cannot be rendered: even at 36 dpi, the lowest, it would be 10000000000 pixels, over the 40000000 pixel limit. Leave it out with `pages`.",
      });
    }
    const others = await call(
      pdfToImage,
      apiEvent({ sourceUrl: server.url('/pdf/giant.pdf'), dpi: 36, pages: '1-2' }),
    );
    expect(others.statusCode).toBe(200);
  });

  it('refuses encrypted and damaged files, and dpi out of range', async () => {
    const locked = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/locked.pdf') }));
    expect(locked.json()).toMatchObject({ error: 'encrypted_pdf' });
    const garbage = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/garbage.pdf') }));
    expect(garbage.json()).toMatchObject({ error: 'invalid_source_file' });
    const dpi = await call(pdfToImage, apiEvent({ sourceUrl: server.url('/pdf/one.pdf'), dpi: 301 }));
    expect((dpi.json() as { message: string }).message).toMatch(/^dpi:/);
  });
});

describe('POST /image-to-pdf', () => {
  it('takes every image input format, one page each, in order', async () => {
    const sources = imageInputFormats.map((format) => server.url(`/img/quad.${format}`));
    const answer = await call(imageToPdf, apiEvent({ sources }, { tier: 'pro' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/pdf');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="quad.pdf"');
    const sizes = await pageSizes(answer.body);
    expect(sizes).toHaveLength(imageInputFormats.length);
    for (const [index, format] of imageInputFormats.entries()) {
      // 64 × 48 pixels at 72 dpi, unless the file states another resolution.
      expect(sizes[index]![0] / sizes[index]![1], format).toBeCloseTo(64 / 48, 1);
      const rendered = await renderPage(answer.body, index, (72 * 64) / sizes[index]![0]);
      const tolerance = format === 'jpg' || format === 'avif' || format === 'heic' ? 40 : 8;
      quadrantsOf(rendered).forEach((colour, quadrant) => {
        expect(
          near(colour, expectedQuadrants[quadrant]!, tolerance),
          `${format} quadrant ${quadrant}: ${colour}`,
        ).toBe(true);
      });
    }
  });

  it('puts a plain JPEG in byte for byte and turns one by its EXIF orientation', async () => {
    const sources = [server.url('/img/plain.jpg'), server.url('/img/sideways.jpg')];
    const answer = await call(imageToPdf, apiEvent({ sources }));
    const doc = await PDFDocument.load(answer.body);
    const plain = Buffer.from(await (await fetch(sources[0]!)).arrayBuffer());
    const streams = doc.context.enumerateIndirectObjects().map(([, object]) => object);
    expect(
      streams.some(
        (object) =>
          object instanceof PDFRawStream && Buffer.compare(Buffer.from(object.contents), plain) === 0,
      ),
    ).toBe(true);
    // 60 × 120 pixels upright at 300 dpi → 14.4 × 28.8 pt
    expect(await pageSizes(answer.body)).toEqual([
      [60, 120],
      [14.4, 28.8],
    ]);
    const turned = await renderPage(answer.body, 1, 300);
    expect(near(colourAt(turned, 0.5, 0.25), [200, 30, 30], 30)).toBe(true);
    expect(near(colourAt(turned, 0.5, 0.75), [30, 60, 220], 30)).toBe(true);
  });

  it('keeps transparency as a soft mask', async () => {
    const answer = await call(imageToPdf, apiEvent({ sources: [server.url('/img/half-clear.png')] }));
    const doc = await PDFDocument.load(answer.body);
    const withMask = doc.context
      .enumerateIndirectObjects()
      .filter(([, object]) => object instanceof PDFRawStream && object.dict.has(PDFName.of('SMask')));
    expect(withMask).toHaveLength(1);
    const rendered = await renderPage(answer.body, 0, 72);
    expect(near(colourAt(rendered, 0.25, 0.5), [0, 128, 0], 4)).toBe(true);
    expect(near(colourAt(rendered, 0.75, 0.5), [255, 255, 255], 4)).toBe(true);
  });

  it('fits images on A4 and Letter pages with a margin, landscape for wide images', async () => {
    const sources = [server.url('/img/quad.png'), server.url('/img/plain.jpg')];
    const a4 = await call(imageToPdf, apiEvent({ sources, pageSize: 'a4', margin: 36 }));
    expect(await pageSizes(a4.body)).toEqual([
      [841.89, 595.28],
      [595.28, 841.89],
    ]);
    // The wide quadrant image fills the height less the margins, centred across.
    const rendered = await renderPage(a4.body, 0, 72);
    const imageWidth = ((595.28 - 72) * 64) / 48;
    const left = (841.89 - imageWidth) / 2;
    expect(near(colourAt(rendered, (left + 5) / 841.89, 0.5 - 0.1), quadrants.topLeft, 8)).toBe(true);
    expect(near(colourAt(rendered, (left - 5) / 841.89, 0.5), [255, 255, 255], 2)).toBe(true);
    expect(near(colourAt(rendered, 0.5, 20 / 595.28), [255, 255, 255], 2)).toBe(true);
    const letter = await call(imageToPdf, apiEvent({ sources, pageSize: 'letter' }));
    expect(await pageSizes(letter.body)).toEqual([
      [792, 612],
      [612, 792],
    ]);
    const fit = await call(imageToPdf, apiEvent({ sources: [sources[0]], margin: 10 }));
    expect(await pageSizes(fit.body)).toEqual([[84, 68]]);
  });

  it('refuses more images than the free tier takes, sources that are no image, and damaged images', async () => {
    const many = await call(
      imageToPdf,
      apiEvent({ sources: Array.from({ length: 6 }, () => server.url('/img/quad.png')) }),
    );
    expect(many.json()).toMatchObject({ error: 'validation_failed' });
    expect((many.json() as { message: string }).message).toContain('The pro tier takes up to 50.');
    const pdf = await call(
      imageToPdf,
      apiEvent({ sources: [server.url('/img/quad.png'), server.url('/pdf/one.pdf')] }),
    );
    expect(pdf.statusCode).toBe(400);
    expect(pdf.json()).toMatchObject({ error: 'unsupported_input_format' });
    expect((pdf.json() as { message: string }).message).toMatch(/^sources\.1: /);
    const broken = (await images.pattern('png')).subarray(0, 60);
    server.serve('/img/broken.png', broken);
    const damaged = await call(imageToPdf, apiEvent({ sources: [server.url('/img/broken.png')] }));
    expect(damaged.statusCode).toBe(400);
    expect(damaged.json()).toMatchObject({ error: 'invalid_source_file' });
  });
});
