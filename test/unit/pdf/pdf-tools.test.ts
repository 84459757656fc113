import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { setPdfMetadata } from '#shared/pdf/metadata.ts';
import { organizePdf } from '#shared/pdf/organize.ts';
import { pageSequence, parseRangeSpec } from '#shared/pdf/ranges.ts';
import { rotatePdf } from '#shared/pdf/rotate.ts';
import { encryptedPdf, pageText, textPdf } from './fixtures.ts';

let dir = '';
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-tools-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes `bytes` as a source, runs `work(source, output)` and loads what it wrote. */
async function through(bytes: Uint8Array, work: (source: string, output: string) => Promise<unknown>) {
  count += 1;
  const [source, output] = [join(dir, `in-${count}.pdf`), join(dir, `out-${count}.pdf`)];
  await writeFile(source, bytes);
  await work(source, output);
  const written = await readFile(output);
  return { written, doc: await PDFDocument.load(written, { updateMetadata: false }) };
}

const codeOf = async (run: Promise<unknown>) =>
  run.then(
    () => 'no error',
    (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
  );

const rotations = (doc: PDFDocument) => doc.getPages().map((page) => page.getRotation().angle);

describe('pageSequence', () => {
  it('keeps the order and the repeats, and runs open ranges to the end', () => {
    expect(pageSequence(parseRangeSpec('3,1-2,2,5-'), 6, 2000)).toEqual([3, 1, 2, 2, 5, 6]);
  });

  it('refuses a page past the end and more pages than the limit', () => {
    expect(() => pageSequence(parseRangeSpec('2,9'), 6, 2000)).toThrow(
      /outside the document, which has 6 pages/,
    );
    expect(() => pageSequence(parseRangeSpec('1-6,1-6'), 6, 10)).toThrow(/12 pages in all/);
  });
});

describe('rotatePdf', () => {
  it('adds the angle to each selected page’s own rotation, inherited ones included', async () => {
    const source = await PDFDocument.load(await textPdf({ pages: 4, rotations: [0, 90, 270, 0] }));
    // Page 4 states no rotation and inherits 180 from the page tree.
    source.catalog.Pages().set(PDFName.Rotate, PDFNumber.of(180));
    source.getPage(3).node.delete(PDFName.Rotate);
    const { doc } = await through(await source.save(), (from, to) =>
      rotatePdf(from, to, { angle: 90, pages: parseRangeSpec('2-4') }),
    );
    expect(rotations(doc)).toEqual([0, 180, 0, 270]);
  });

  it('turns every page without pages, and refuses a range past the end', async () => {
    const bytes = await textPdf({ pages: 2, rotations: [180] });
    const { doc } = await through(bytes, (from, to) => rotatePdf(from, to, { angle: 270, pages: undefined }));
    expect(rotations(doc)).toEqual([90, 90]);
    const past = through(bytes, (from, to) => rotatePdf(from, to, { angle: 90, pages: parseRangeSpec('3') }));
    expect(await codeOf(past)).toBe('invalid_range');
  });

  it('refuses an encrypted source', async () => {
    const locked = through(await encryptedPdf(), (from, to) =>
      rotatePdf(from, to, { angle: 90, pages: undefined }),
    );
    expect(await codeOf(locked)).toBe('encrypted_pdf');
  });
});

describe('organizePdf', () => {
  it('writes the named pages in the order given, repeats as copies, and keeps the title', async () => {
    const bytes = await textPdf({ pages: 5, title: 'Ordered' });
    const { written, doc } = await through(bytes, (from, to) =>
      organizePdf(from, to, parseRangeSpec('3,1-2,2,5-')),
    );
    const texts = [];
    for (let index = 0; index < doc.getPageCount(); index += 1) texts.push(await pageText(written, index));
    expect(texts).toEqual(['Page 3', 'Page 1', 'Page 2', 'Page 2', 'Page 5']);
    expect(doc.getTitle()).toBe('Ordered');
    // The repeated page is a page object of its own.
    expect(new Set(doc.getPages().map((page) => page.ref.toString())).size).toBe(5);
  });

  it('refuses a page past the end', async () => {
    const past = through(await textPdf({ pages: 2 }), (from, to) =>
      organizePdf(from, to, parseRangeSpec('1,3')),
    );
    expect(await codeOf(past)).toBe('invalid_range');
  });
});

/** The text of the catalog's XMP stream. */
function xmpOf(doc: PDFDocument): string {
  const stream = doc.catalog.lookup(PDFName.of('Metadata'));
  if (!(stream instanceof PDFRawStream)) throw new Error('no XMP stream');
  return new TextDecoder().decode(stream.getContents());
}

describe('setPdfMetadata', () => {
  it('sets, removes and keeps fields, in the Info dictionary and the XMP alike', async () => {
    const bytes = await textPdf({ pages: 1, title: 'Old title' });
    const { doc } = await through(bytes, (from, to) =>
      setPdfMetadata(from, to, {
        title: 'Ünïcode & <more>',
        subject: 'Reports',
        keywords: ['alpha', 'beta gamma'],
        producer: null,
        creationDate: new Date('2020-02-03T04:05:06Z'),
      }),
    );
    expect(doc.getTitle()).toBe('Ünïcode & <more>');
    expect(doc.getSubject()).toBe('Reports');
    expect(doc.getKeywords()).toBe('alpha, beta gamma');
    expect(doc.getProducer()).toBeUndefined();
    expect(doc.getAuthor()).toBe('Test Author');
    expect(doc.getCreationDate()?.toISOString()).toBe('2020-02-03T04:05:06.000Z');
    const xmp = xmpOf(doc);
    expect(xmp).toContain(
      '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Ünïcode &amp; &lt;more&gt;</rdf:li>',
    );
    expect(xmp).toContain('<dc:creator><rdf:Seq><rdf:li>Test Author</rdf:li></rdf:Seq></dc:creator>');
    expect(xmp).toContain('<dc:subject><rdf:Bag><rdf:li>alpha</rdf:li><rdf:li>beta gamma</rdf:li></rdf:Bag>');
    expect(xmp).toContain('<pdf:Keywords>alpha, beta gamma</pdf:Keywords>');
    expect(xmp).toContain('<xmp:CreateDate>2020-02-03T04:05:06.000Z</xmp:CreateDate>');
    expect(xmp).toContain('<xmp:CreatorTool>fixture generator</xmp:CreatorTool>');
    expect(xmp).not.toContain('Producer');
    expect(xmp).not.toContain('Old title');
  });

  it('replaces an XMP stream that disagreed with the Info dictionary', async () => {
    const source = await PDFDocument.load(await textPdf({ pages: 1, title: 'Info title' }));
    const stale = source.context.stream('<x:xmpmeta><dc:title>Stale title</dc:title></x:xmpmeta>', {
      Type: 'Metadata',
      Subtype: 'XML',
    });
    source.catalog.set(PDFName.of('Metadata'), source.context.register(stale));
    const { doc } = await through(await source.save(), (from, to) =>
      setPdfMetadata(from, to, { author: null }),
    );
    const xmp = xmpOf(doc);
    expect(xmp).toContain('Info title');
    expect(xmp).not.toContain('Stale title');
    expect(xmp).not.toContain('dc:creator');
    expect(doc.getAuthor()).toBeUndefined();
  });
});
