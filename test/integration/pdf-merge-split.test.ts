import { degrees, type PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as merge } from '#functions/pdf-merge/handler.ts';
import { handler as split } from '#functions/pdf-split/handler.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { apiEvent, call } from '../support/lambda.ts';
import {
  colourAt,
  encryptedPdf,
  manyPagesPdf,
  near,
  pageColour,
  photo,
  renderPage,
  textPdf,
  zipEntries,
} from '../unit/pdf/fixtures.ts';

const server = new FixtureServer();
let downloads = 0;

/** Sizes and rotations of the documents' pages, as pdf-lib reads them back. */
async function pagesOf(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes);
  return doc.getPages().map((page) => ({ ...page.getSize(), rotation: page.getRotation().angle }));
}

const imageCount = (doc: PDFDocument) =>
  doc.context
    .enumerateIndirectObjects()
    .filter(
      ([, object]) =>
        object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
    ).length;

const pageObjectCount = (doc: PDFDocument) =>
  doc.context
    .enumerateIndirectObjects()
    .filter(([, object]) => object instanceof PDFDict && object.get(PDFName.Type) === PDFName.of('Page'))
    .length;

const mixed = {
  sizes: [
    [300, 400],
    [595, 842],
    [500, 250],
  ] as Array<[number, number]>,
  rotations: [0, 90, 180],
};

beforeAll(async () => {
  await server.start();
  server.serve(
    '/docs/report.pdf',
    Buffer.from(await textPdf({ pages: 3, ...mixed, title: 'Quarterly report' })),
  );
  server.serve('/docs/annex.pdf', Buffer.from(await textPdf({ pages: 2, sizes: [[200, 200]] })));
  server.serve('/docs/locked.pdf', Buffer.from(await encryptedPdf()));
  server.serve('/docs/long.pdf', Buffer.from(await manyPagesPdf(300)));
  server.serve(
    '/docs/picture.png',
    Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'),
  );
  // A page tree whose root node carries the rotation and size the pages inherit.
  const inherited = await PDFDocument.load(await textPdf({ pages: 2, sizes: [[320, 240]] }));
  const root = inherited.catalog.get(PDFName.of('Pages'));
  const tree = inherited.context.lookup(root) as ReturnType<typeof inherited.catalog.Pages>;
  tree.set(PDFName.Rotate, PDFNumber.of(270));
  tree.set(PDFName.MediaBox, inherited.context.obj([0, 0, 320, 240]));
  for (const page of inherited.getPages()) {
    page.node.delete(PDFName.Rotate);
    page.node.delete(PDFName.MediaBox);
  }
  server.serve('/docs/inherited.pdf', Buffer.from(await inherited.save({ useObjectStreams: false })));
  // Five pages, each with its own photo; page 1 links to every other page.
  const linked = await PDFDocument.create();
  const jpeg = await (await photo(200, 200)).jpeg().toBuffer();
  const pages = [];
  for (let index = 0; index < 5; index += 1) {
    const page = linked.addPage([200, 200]);
    page.drawImage(await linked.embedJpg(jpeg), { x: 0, y: 0, width: 200, height: 200 });
    pages.push(page);
  }
  const links = pages
    .slice(1)
    .map((page) =>
      linked.context.register(
        linked.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 9, 9], Dest: [page.ref, 'Fit'] }),
      ),
    );
  pages[0]?.node.set(PDFName.Annots, linked.context.obj(links));
  server.serve('/docs/contents.pdf', Buffer.from(await linked.save()));
  server.route('/docs/counted.pdf', (_request, response) => {
    downloads += 1;
    response.writeHead(404).end();
  });
});

afterAll(() => server.stop());

describe('POST /pdf-merge', () => {
  it('appends every page in order, keeping sizes and rotation', async () => {
    const sources = [server.url('/docs/report.pdf'), server.url('/docs/annex.pdf')];
    const answer = await call(merge, apiEvent({ sources }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/pdf');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="report.pdf"');
    expect(await pagesOf(answer.body)).toEqual([
      { width: 300, height: 400, rotation: 0 },
      { width: 595, height: 842, rotation: 90 },
      { width: 500, height: 250, rotation: 180 },
      { width: 200, height: 200, rotation: 0 },
      { width: 200, height: 200, rotation: 0 },
    ]);
    const merged = await PDFDocument.load(answer.body);
    expect(merged.getTitle()).toBe('Quarterly report');
    // Page 4 is the annex's first page: its left half is page 1's colour.
    const fourth = await renderPage(answer.body, 3);
    expect(near(colourAt(fourth, 0.25, 0.5), pageColour(1))).toBe(true);
    const second = await renderPage(answer.body, 1);
    expect([second.width, second.height]).toEqual([842, 595]);
  });

  it('gives pages the size and rotation they inherited from the page tree', async () => {
    const sources = [server.url('/docs/inherited.pdf'), server.url('/docs/annex.pdf')];
    const answer = await call(merge, apiEvent({ sources }));
    expect((await pagesOf(answer.body)).slice(0, 2)).toEqual([
      { width: 320, height: 240, rotation: 270 },
      { width: 320, height: 240, rotation: 270 },
    ]);
    const first = await renderPage(answer.body, 0);
    expect([first.width, first.height]).toEqual([240, 320]);
  });

  it('keeps links pointing at the merged pages, without hidden copies of them', async () => {
    const sources = [server.url('/docs/contents.pdf'), server.url('/docs/annex.pdf')];
    const doc = await PDFDocument.load((await call(merge, apiEvent({ sources }))).body);
    const pages = doc.getPages();
    const annotations = pages[0]?.node.lookup(PDFName.Annots) as PDFArray;
    const targets = annotations
      .asArray()
      .map((entry) => ((doc.context.lookup(entry) as PDFDict).lookup(PDFName.of('Dest')) as PDFArray).get(0));
    expect(targets).toEqual(pages.slice(1, 5).map((page) => page.ref));
    // A hidden copy of a linked page would be a page object outside the page tree.
    expect(pageObjectCount(doc)).toBe(pages.length);
    // The five pages' equal photos are stored once.
    expect(imageCount(doc)).toBe(1);
  });

  it('refuses more sources than the free tier takes, naming the tier that takes them', async () => {
    const sources = Array.from({ length: 6 }, () => server.url('/docs/annex.pdf'));
    const answer = await call(merge, apiEvent({ sources }));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      error: 'validation_failed',
      message:
        'sources: 6 files are more than the 5 per request of the free tier. The pro tier takes up to 50.',
    });
    const pro = await call(merge, apiEvent({ sources }, { tier: 'pro' }));
    expect(pro.statusCode).toBe(200);
    expect(await pagesOf(pro.body)).toHaveLength(12);
  });

  it('names the source that is encrypted', async () => {
    const sources = [server.url('/docs/annex.pdf'), server.url('/docs/locked.pdf')];
    const answer = await call(merge, apiEvent({ sources }));
    expect(answer.statusCode).toBe(400);
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('encrypted_pdf');
    expect(body.message).toMatch(/^sources\.1: The PDF is encrypted/);
  });

  it('refuses a source that is no PDF', async () => {
    const sources = [server.url('/docs/annex.pdf'), server.url('/docs/picture.png')];
    const answer = await call(merge, apiEvent({ sources }));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: 'unsupported_input_format' });
    expect((answer.json() as { message: string }).message).toMatch(
      /^sources\.1: The source is in png format/,
    );
  });

  it('needs at least two sources', async () => {
    const answer = await call(merge, apiEvent({ sources: [server.url('/docs/annex.pdf')] }));
    expect(answer.json()).toMatchObject({ error: 'validation_failed' });
    expect((answer.json() as { message: string }).message).toContain('sources:');
  });
});

describe('POST /pdf-split', () => {
  it('writes one PDF per page by default, in a ZIP named after the source', async () => {
    const answer = await call(split, apiEvent({ sourceUrl: server.url('/docs/report.pdf') }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/zip');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="report.zip"');
    const entries = zipEntries(answer.body);
    expect(entries.map(([name]) => name)).toEqual(['report-1.pdf', 'report-2.pdf', 'report-3.pdf']);
    for (const [index, [, bytes]] of entries.entries()) {
      const pages = await pagesOf(bytes);
      expect(pages).toEqual([
        { width: mixed.sizes[index]![0], height: mixed.sizes[index]![1], rotation: mixed.rotations[index] },
      ]);
      const rendered = await renderPage(bytes, 0, 36);
      const rotated =
        index === 1 ? colourAt(rendered, 0.5, 0.25) : colourAt(rendered, index === 2 ? 0.75 : 0.25, 0.5);
      expect(near(rotated, pageColour(index + 1))).toBe(true);
    }
  });

  it('writes one PDF per range', async () => {
    const answer = await call(
      split,
      apiEvent({ sourceUrl: server.url('/docs/report.pdf'), ranges: '1-2, 3' }),
    );
    const entries = zipEntries(answer.body);
    expect(entries.map(([name]) => name)).toEqual(['report-1-2.pdf', 'report-3.pdf']);
    expect(await pagesOf(entries[0]![1])).toHaveLength(2);
    expect((await PDFDocument.load(entries[1]![1])).getTitle()).toBe('Quarterly report');
  });

  it('answers a PDF for a single range', async () => {
    const answer = await call(split, apiEvent({ sourceUrl: server.url('/docs/long.pdf'), ranges: '250-' }));
    expect(answer.headers['Content-Type']).toBe('application/pdf');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="long.pdf"');
    expect(await pagesOf(answer.body)).toHaveLength(51);
  });

  it('splits a long document into many files', async () => {
    const answer = await call(
      split,
      apiEvent({ sourceUrl: server.url('/docs/long.pdf'), ranges: '1-100,101-200,201-' }),
    );
    const entries = zipEntries(answer.body);
    expect(entries.map(([name]) => name)).toEqual(['long-1-100.pdf', 'long-101-200.pdf', 'long-201-300.pdf']);
    for (const [, bytes] of entries) expect(await pagesOf(bytes)).toHaveLength(100);
  });

  it('refuses a malformed or reversed range before downloading', async () => {
    const sourceUrl = server.url('/docs/counted.pdf');
    for (const [ranges, message] of [
      ['3-1', 'ranges: "3-1" is reversed; write "1-3".'],
      ['1-2;4', 'ranges: "1-2;4" is not a page or range; write pages and ranges like "1-3,5,7-".'],
    ]) {
      const answer = await call(split, apiEvent({ sourceUrl, ranges }));
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toEqual({ error: 'invalid_range', message });
    }
    expect(downloads).toBe(0);
  });

  it('refuses a range outside the document', async () => {
    const answer = await call(split, apiEvent({ sourceUrl: server.url('/docs/report.pdf'), ranges: '2-9' }));
    expect(answer.json()).toEqual({
      error: 'invalid_range',
      message: 'ranges: "2-9" is outside the document, which has 3 pages.',
    });
  });

  it('refuses ranges that would write more pages than the limit', async () => {
    const ranges = Array.from({ length: 7 }, (_, index) => `1-${300 - index}`).join(',');
    const answer = await call(split, apiEvent({ sourceUrl: server.url('/docs/long.pdf'), ranges }));
    expect(answer.json()).toMatchObject({ error: 'invalid_range' });
    expect((answer.json() as { message: string }).message).toContain('at most 2000 are written per request');
  });

  it('keeps links between the pages it writes and drops links (and their pages) to the others', async () => {
    const answer = await call(
      split,
      apiEvent({ sourceUrl: server.url('/docs/contents.pdf'), ranges: '1-2' }),
    );
    const doc = await PDFDocument.load(answer.body);
    expect(doc.getPageCount()).toBe(2);
    const annotations = doc.getPages()[0]?.node.lookup(PDFName.Annots) as PDFArray;
    expect(annotations.size()).toBe(1);
    expect(imageCount(doc)).toBe(2);
  });

  it('keeps rotation when a rotated page is cut out', async () => {
    const answer = await call(split, apiEvent({ sourceUrl: server.url('/docs/report.pdf'), ranges: '2' }));
    const [page] = (await PDFDocument.load(answer.body)).getPages();
    expect(page?.getRotation()).toEqual(degrees(90));
  });
});
