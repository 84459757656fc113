import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFDocument, PDFName, PDFNumber, type PDFPageTree, type PDFRef } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { HttpError } from '#shared/http/errors.ts';
import { type PdfLimits, pdfLimits } from '#shared/pdf/limits.ts';
import { openPdf } from '#shared/pdf/open.ts';
import { encryptedPdf, manyPagesPdf, textPdf } from './fixtures.ts';

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected the PDF to be refused');
}

const limits = (overrides: Partial<PdfLimits>): PdfLimits => ({ ...pdfLimits, ...overrides });
const withHeader = (body: Buffer) =>
  Buffer.concat([Buffer.from('%PDF-1.7\n'), body, Buffer.from('\n%%EOF\n')]);

/** Rewrites a generated document's structure, then serialises it without object streams. */
async function edited(edit: (doc: PDFDocument) => void, pages = 2): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await textPdf({ pages }));
  edit(doc);
  return doc.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false });
}

const rootOf = (doc: PDFDocument) => doc.catalog.get(PDFName.of('Pages')) as PDFRef;
const treeOf = (doc: PDFDocument) => doc.context.lookup(rootOf(doc)) as PDFPageTree;

describe('opening a PDF', () => {
  it('reads pages, version and encryption of a sound file', async () => {
    const opened = await openPdf(await textPdf({ pages: 4 }));
    expect(opened.pageCount).toBe(4);
    expect(opened.encrypted).toBe(false);
    expect(opened.version).toBe('1.7');
  });

  it('refuses encrypted files with encrypted_pdf, and reports them where asked', async () => {
    const bytes = await encryptedPdf();
    expect((await refusal(openPdf(bytes))).code).toBe('encrypted_pdf');
    const opened = await openPdf(bytes, { allowEncrypted: true });
    expect(opened).toMatchObject({ encrypted: true, pageCount: 2 });
  });

  it('refuses a file without a PDF header', async () => {
    const error = await refusal(openPdf(Buffer.from('just some text\n%%EOF')));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toContain('no %PDF- header');
  });

  it('refuses a truncated file', async () => {
    const bytes = await textPdf({ pages: 3 });
    const error = await refusal(openPdf(bytes.subarray(0, Math.floor(bytes.length * 0.6))));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toContain('%%EOF');
  });

  it('accepts padding after the end marker', async () => {
    const padded = Buffer.concat([
      Buffer.from(await textPdf({ pages: 1 })),
      Buffer.alloc(5000),
      Buffer.from('\r\n  '),
    ]);
    expect((await openPdf(padded)).pageCount).toBe(1);
  });

  it('refuses a file cut inside an object even when an end marker was added', async () => {
    const bytes = Buffer.from(await textPdf({ pages: 3 }));
    const cut = bytes.indexOf('stream') + 20;
    const error = await refusal(openPdf(Buffer.concat([bytes.subarray(0, cut), Buffer.from('\n%%EOF\n')])));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toBe('The PDF could not be read: it is damaged or not a complete PDF file.');
  });

  it('gives up on garbage within its time budget', async () => {
    const started = performance.now();
    const error = await refusal(
      openPdf(withHeader(randomBytes(3_000_000)), {
        limits: limits({ parseBaseMs: 200, parseMsPerMegabyte: 0 }),
      }),
    );
    expect(error.code).toBe('invalid_source_file');
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('stops counting objects at the limit', async () => {
    const numbers = Buffer.from(`1 0 obj\n[${'7 '.repeat(200_000)}]\nendobj\n`);
    const error = await refusal(
      openPdf(withHeader(numbers), { limits: limits({ maxParsedObjects: 50_000 }) }),
    );
    expect(error.message).toContain('more than 50000 objects');
  });

  it('counts the objects inside object streams too', async () => {
    const doc = await PDFDocument.create();
    for (let index = 0; index < 5000; index += 1)
      doc.context.register(doc.context.obj({ Index: index, Note: 'x' }));
    doc.addPage();
    const bytes = await doc.save({ useObjectStreams: true });
    expect((await openPdf(bytes)).pageCount).toBe(1);
    const error = await refusal(openPdf(bytes, { limits: limits({ maxParsedObjects: 10_000 }) }));
    expect(error.message).toContain('more than 10000 objects');
  });

  it('measures an object stream before pdf-lib inflates it', async () => {
    const bytes = await edited((doc) => {
      doc.context.register(
        doc.context.stream(deflateSync(Buffer.alloc(8_000_000)), {
          Type: 'ObjStm',
          N: 1,
          First: 4,
          Filter: 'FlateDecode',
        }),
      );
    });
    const error = await refusal(openPdf(bytes, { limits: limits({ maxDecodedStreamBytes: 1_000_000 }) }));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toContain('decodes to more data');
  });

  it('refuses a page tree with a cycle', async () => {
    const bytes = await edited((doc) => treeOf(doc).Kids().push(rootOf(doc)));
    expect((await refusal(openPdf(bytes))).message).toContain('reaches a page or node twice');
  });

  it('refuses a node shared by two parents (pages multiplied without end)', async () => {
    const bytes = await edited((doc) => {
      const tree = treeOf(doc);
      const kids = tree.Kids().asArray();
      const middle = doc.context.register(doc.context.obj({ Type: 'Pages', Kids: kids, Count: kids.length }));
      tree.set(PDFName.of('Kids'), doc.context.obj([middle, middle]));
    });
    expect((await refusal(openPdf(bytes))).message).toContain('reaches a page or node twice');
  });

  it('refuses a page tree nested too deeply', async () => {
    const bytes = await edited((doc) => {
      let kids = treeOf(doc).Kids().asArray();
      for (let depth = 0; depth < 80; depth += 1) {
        kids = [doc.context.register(doc.context.obj({ Type: 'Pages', Kids: kids, Count: 2 }))];
      }
      treeOf(doc).set(PDFName.of('Kids'), doc.context.obj(kids));
    });
    expect((await refusal(openPdf(bytes))).message).toContain('nested too deeply');
  });

  it('repairs Parent links that point anywhere but the parent', async () => {
    const bytes = await edited((doc) => {
      const [first] = doc.getPages();
      first?.node.set(PDFName.Parent, first.ref);
      first?.node.delete(PDFName.MediaBox);
    });
    const opened = await openPdf(bytes);
    const [first, second] = opened.doc.getPages();
    expect(first?.getSize()).toEqual({ width: 612, height: 792 });
    expect(second?.getSize()).toEqual({ width: 300, height: 400 });
  });

  it('refuses a page without a usable size', async () => {
    const bytes = await edited((doc) =>
      doc.getPages()[1]?.node.set(PDFName.MediaBox, doc.context.obj([0, 0, 0, 0])),
    );
    expect((await refusal(openPdf(bytes))).message).toContain('page 2 has no valid size');
  });

  it('refuses more pages than an operation takes, but counts them all for pdf-info', async () => {
    const bytes = await manyPagesPdf(30);
    expect((await refusal(openPdf(bytes, { maxPages: 20 }))).message).toContain('more than 20 pages');
    expect((await openPdf(bytes, { maxPages: undefined })).pageCount).toBe(30);
  });

  it('corrects Count entries to what the tree holds', async () => {
    const bytes = await edited((doc) => treeOf(doc).set(PDFName.of('Count'), PDFNumber.of(99)), 3);
    const opened = await openPdf(bytes);
    expect(treeOf(opened.doc).get(PDFName.of('Count'))).toEqual(PDFNumber.of(3));
    expect(treeOf(opened.doc).Kids()).toBeInstanceOf(PDFArray);
  });

  it.each([
    ['of another /Type', '/Type /Catalox'],
    ['without a /Type', '/Kind /Catalog'],
  ])('refuses a catalog %s, which pdf-lib cannot read pages through', async (_name, replacement) => {
    const bytes = Buffer.from(await edited(() => undefined));
    const at = bytes.indexOf('/Type /Catalog');
    expect(at).toBeGreaterThan(0);
    bytes.write(replacement, at, 'latin1'); // same length: the cross-reference table still holds
    const error = await refusal(openPdf(bytes));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toBe(
      'The PDF could not be read: its document catalog (/Root) is missing or is not a /Type /Catalog dictionary.',
    );
  });

  it('describes an encrypted file whose catalog cannot be read, without its pages', async () => {
    const bytes = Buffer.from(await encryptedPdf());
    bytes.write('/Type /Catalox', bytes.indexOf('/Type /Catalog'), 'latin1');
    const opened = await openPdf(bytes, { allowEncrypted: true });
    expect(opened).toMatchObject({ encrypted: true, pageCount: undefined, version: '1.7' });
  });

  it('reads a later version from the catalog', async () => {
    const bytes = await edited((doc) => doc.catalog.set(PDFName.of('Version'), PDFName.of('2.0')));
    expect((await openPdf(bytes)).version).toBe('2.0');
  });
});
