import { PDFDocument, PDFName, type PDFNumber, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as compress } from '#functions/pdf-compress/handler.ts';
import { handler as info } from '#functions/pdf-info/handler.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { apiEvent, call } from '../support/lambda.ts';
import {
  colourAt,
  encryptedPdf,
  imagePdf,
  manyPagesPdf,
  near,
  pageText,
  renderPage,
  textPdf,
} from '../unit/pdf/fixtures.ts';

const server = new FixtureServer();
const sources: Record<string, Uint8Array> = {};

/** Width, height and filter of every image XObject, in object order. */
async function imagesOf(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes);
  return doc.context
    .enumerateIndirectObjects()
    .map(([, object]) => object)
    .filter(
      (object): object is PDFRawStream =>
        object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
    )
    .map((image) => ({
      width: (image.dict.get(PDFName.of('Width')) as PDFNumber).asNumber(),
      height: (image.dict.get(PDFName.of('Height')) as PDFNumber).asNumber(),
      filter: String(image.dict.get(PDFName.of('Filter'))),
    }));
}

/** Average colour difference of two renders of the same page. */
async function renderDistance(a: Uint8Array, b: Uint8Array, index: number): Promise<number> {
  const [left, right] = [await renderPage(a, index, 36), await renderPage(b, index, 36)];
  expect([left.width, left.height]).toEqual([right.width, right.height]);
  let total = 0;
  for (let at = 0; at < left.data.length; at += 4) {
    for (let c = 0; c < 3; c += 1) total += Math.abs(left.data[at + c]! - right.data[at + c]!);
  }
  return total / ((left.data.length / 4) * 3);
}

beforeAll(async () => {
  await server.start();
  sources.images = await imagePdf({ jpegSize: [1800, 1350], flateSize: [1200, 900] });
  sources.text = await textPdf({
    pages: 3,
    rotations: [0, 90, 0],
    title: 'Plain \u0007text',
    sizes: [[300, 400]],
  });
  sources.locked = await encryptedPdf();
  sources.long = await manyPagesPdf(300);
  for (const [name, bytes] of Object.entries(sources)) server.serve(`/files/${name}.pdf`, Buffer.from(bytes));
  server.serve(
    '/files/garbage.pdf',
    Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(5000, 'q'), Buffer.from('%%EOF')]),
  );
  server.serve('/files/cut.pdf', Buffer.from(sources.images.subarray(0, 100_000)));
});

afterAll(() => server.stop());

describe('POST /pdf-compress', () => {
  it('downsamples and re-encodes raster images, keeping pages, text and look', async () => {
    const answer = await call(compress, apiEvent({ sourceUrl: server.url('/files/images.pdf') }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/pdf');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="images.pdf"');
    const original = sources.images!;
    expect(answer.headers['X-Original-Size']).toBe(String(original.length));
    expect(answer.headers['X-Output-Size']).toBe(String(answer.body.length));
    expect(answer.body.length).toBeLessThan(original.length / 10);

    // Pages are 4 × 3 in: at medium's 150 dpi no image needs more than 600 pixels.
    expect(await imagesOf(original)).toEqual([
      { width: 1800, height: 1350, filter: '/DCTDecode' },
      { width: 1200, height: 900, filter: '/FlateDecode' },
    ]);
    expect(await imagesOf(answer.body)).toEqual([
      { width: 600, height: 450, filter: '/DCTDecode' },
      { width: 600, height: 450, filter: '/DCTDecode' },
    ]);
    expect((await PDFDocument.load(answer.body)).getPageCount()).toBe(3);
    expect(await pageText(answer.body, 2)).toContain('Text survives compression');
    for (const page of [0, 1, 2]) expect(await renderDistance(original, answer.body, page)).toBeLessThan(6);
  });

  it('compresses harder at higher levels', async () => {
    const sizes: number[] = [];
    for (const level of ['low', 'medium', 'high']) {
      const answer = await call(compress, apiEvent({ sourceUrl: server.url('/files/images.pdf'), level }));
      expect(answer.statusCode).toBe(200);
      sizes.push(answer.body.length);
    }
    expect(sizes[0]).toBeGreaterThan(sizes[1]!);
    expect(sizes[1]).toBeGreaterThan(sizes[2]!);
  });

  it('never answers a larger file: then the source comes back unchanged', async () => {
    const answer = await call(
      compress,
      apiEvent({ sourceUrl: server.url('/files/text.pdf'), level: 'high' }),
    );
    expect(answer.statusCode).toBe(200);
    expect(Buffer.compare(answer.body, Buffer.from(sources.text!))).toBe(0);
    expect(answer.headers['X-Output-Size']).toBe(answer.headers['X-Original-Size']);
  });

  it('refuses encrypted, damaged and cut-off files', async () => {
    for (const [name, code] of [
      ['locked', 'encrypted_pdf'],
      ['garbage', 'invalid_source_file'],
      ['cut', 'invalid_source_file'],
    ]) {
      const answer = await call(compress, apiEvent({ sourceUrl: server.url(`/files/${name}.pdf`) }));
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ error: code });
    }
  });

  it('keeps the colours of a page at the highest level', async () => {
    const answer = await call(
      compress,
      apiEvent({ sourceUrl: server.url('/files/images.pdf'), level: 'high' }),
    );
    const page = await renderPage(answer.body, 0, 36);
    const before = await renderPage(sources.images!, 0, 36);
    expect(near(colourAt(page, 0.5, 0.5), colourAt(before, 0.5, 0.5), 40)).toBe(true);
  });

  it('refuses an unknown level', async () => {
    const answer = await call(compress, apiEvent({ sourceUrl: server.url('/files/text.pdf'), level: 'max' }));
    expect(answer.json()).toMatchObject({ error: 'validation_failed' });
    expect((answer.json() as { message: string }).message).toContain('level:');
  });
});

describe('POST /pdf-info', () => {
  it('describes a document', async () => {
    const answer = await call(info, apiEvent({ sourceUrl: server.url('/files/text.pdf') }));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      pages: 3,
      encrypted: false,
      permissions: null,
      formFields: [],
      pdfVersion: '1.7',
      title: 'Plain text',
      author: 'Test Author',
      creator: 'fixture generator',
      producer: 'pdf-lib',
      pageSizes: [
        { width: 300, height: 400 },
        { width: 400, height: 300 },
        { width: 300, height: 400 },
      ],
      sizeBytes: sources.text!.length,
    });
  });

  it('reports an encrypted document instead of refusing it', async () => {
    const answer = await call(info, apiEvent({ sourceUrl: server.url('/files/locked.pdf') }));
    expect(answer.json()).toMatchObject({ pages: 2, encrypted: true, title: null, author: null });
  });

  it('lists the sizes of the first 100 pages only', async () => {
    const body = (await call(info, apiEvent({ sourceUrl: server.url('/files/long.pdf') }))).json() as {
      pages: number;
      pageSizes: unknown[];
    };
    expect(body.pages).toBe(300);
    expect(body.pageSizes).toHaveLength(100);
    expect(body.pageSizes[99]).toEqual({ width: 200, height: 200 });
  });

  it('refuses a damaged file', async () => {
    const answer = await call(info, apiEvent({ sourceUrl: server.url('/files/garbage.pdf') }));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: 'invalid_source_file' });
  });
});
