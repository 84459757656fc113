import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFDocument, PDFName, PDFNumber, type PDFPageTree, type PDFRef } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { type PdfLimits, pdfLimits } from '#shared/pdf/limits.ts';
import { openPdf } from '#shared/pdf/open.ts';
import { encryptedPdf, manyPagesPdf, textPdf } from './fixtures.ts';

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
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

  it('refuses a file cut inside its objects', async () => {
    const bytes = await textPdf({ pages: 3 });
    const error = await refusal(openPdf(bytes.subarray(0, Math.floor(bytes.length * 0.6))));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toBe('The PDF could not be read: it is damaged or not a complete PDF file.');
  });

  it('reads a file without the %%EOF marker, as viewers do', async () => {
    const bytes = Buffer.from(await textPdf({ pages: 3 }));
    const opened = await openPdf(bytes.subarray(0, bytes.lastIndexOf('%%EOF')));
    expect(opened.pageCount).toBe(3);
  });

  it.each([
    ['a mail banner', Buffer.from('X-Mailer: gateway\r\n\r\n')],
    ['a UTF-8 byte-order mark', Buffer.from([0xef, 0xbb, 0xbf])],
    ['1000 bytes of anything', Buffer.alloc(1000, 0x41)],
  ])('reads a file with %s before %PDF-', async (_name, prefix) => {
    const opened = await openPdf(Buffer.concat([prefix, await textPdf({ pages: 2 })]));
    expect(opened.pageCount).toBe(2);
  });

  it('refuses a header further than 1024 bytes in', async () => {
    const error = await refusal(openPdf(Buffer.concat([Buffer.alloc(1100, 0x41), await textPdf()])));
    expect(error.message).toContain('no %PDF- header');
  });

  it('leaves out an object pdf-lib cannot parse when pdfium reads the file', async () => {
    const bytes = Buffer.from(await edited(() => undefined));
    const at = bytes.indexOf('/Type /Catalog');
    // An unreferenced object whose dictionary never closes: pdf-lib refuses it, pdfium skips it.
    const broken = Buffer.concat([
      bytes.subarray(0, bytes.indexOf('xref')),
      Buffer.from('99 0 obj\n<< /A [1 2 >> >>\nendobj\n'),
      bytes.subarray(bytes.indexOf('xref')),
    ]);
    expect(at).toBeGreaterThan(0);
    const opened = await openPdf(broken);
    expect(opened.pageCount).toBe(2);
    expect(opened.repairs).toContain('objects that could not be parsed left out');
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
    // The route's own limit; the three-second budget is measured in test/perf/timings.test.ts.
    expect(performance.now() - started).toBeLessThan(29_000);
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

  it('leaves out a page-tree entry that leads back up the tree, as viewers do', async () => {
    const bytes = await edited((doc) => treeOf(doc).Kids().push(rootOf(doc)));
    const opened = await openPdf(bytes);
    expect(opened.pageCount).toBe(2);
    expect(opened.repairs).toEqual(['a page or node met twice left out']);
  });

  it('reads a node shared by two parents once (pages are not multiplied)', async () => {
    const bytes = await edited((doc) => {
      const tree = treeOf(doc);
      const kids = tree.Kids().asArray();
      const middle = doc.context.register(doc.context.obj({ Type: 'Pages', Kids: kids, Count: kids.length }));
      tree.set(PDFName.of('Kids'), doc.context.obj([middle, middle]));
    });
    expect((await openPdf(bytes)).pageCount).toBe(2);
  });

  it('leaves out page-tree entries that are no pages', async () => {
    const bytes = await edited((doc) => {
      treeOf(doc)
        .Kids()
        .insert(0, doc.context.register(doc.context.obj([1, 2])));
      treeOf(doc).Kids().push(PDFNumber.of(7));
    });
    const opened = await openPdf(bytes);
    expect(opened.pageCount).toBe(2);
    expect(opened.doc.getPages()[0]?.getSize()).toEqual({ width: 300, height: 400 });
  });

  it('reads page-tree nodes without /Type by what they hold', async () => {
    const bytes = await edited((doc) => {
      treeOf(doc).delete(PDFName.Type);
      for (const page of doc.getPages()) page.node.delete(PDFName.Type);
    });
    const opened = await openPdf(bytes);
    expect(opened.pageCount).toBe(2);
    expect(opened.doc.getPages().map((page) => page.getSize())).toEqual([
      { width: 300, height: 400 },
      { width: 300, height: 400 },
    ]);
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

  it.each([
    ['reversed corners', [300, 400, 0, 0], undefined, { width: 300, height: 400 }],
    ['an empty box, with a CropBox', [0, 0, 0, 0], [0, 0, 100, 150], { width: 100, height: 150 }],
    ['three numbers', [0, 0, 300], undefined, { width: 612, height: 792 }],
    ['a name among the numbers', [0, 0, 'A', 9], [10, 10, 50, 60], { width: 40, height: 50 }],
  ])('settles a page MediaBox of %s as viewers do', async (_name, media, crop, size) => {
    const bytes = await edited((doc) => {
      const page = doc.getPages()[1]!;
      page.node.set(
        PDFName.MediaBox,
        doc.context.obj(media.map((v) => (typeof v === 'string' ? PDFName.of(v) : v))),
      );
      if (crop) page.node.set(PDFName.of('CropBox'), doc.context.obj(crop));
    });
    const opened = await openPdf(bytes);
    const { width, height } = opened.doc.getPages()[1]!.getMediaBox();
    expect({ width, height }).toEqual(size);
    expect(opened.repairs).toEqual(['page 2 given a usable MediaBox']);
  });

  it("takes a parent's MediaBox when the page's own is broken, and Letter when no box is usable", async () => {
    const bytes = await edited((doc) => {
      treeOf(doc).set(PDFName.MediaBox, doc.context.obj([0, 0, 500, 250]));
      doc.getPages()[0]!.node.set(PDFName.MediaBox, doc.context.obj([0, 0, 0, 0]));
    });
    const opened = await openPdf(bytes);
    expect(opened.doc.getPages()[0]!.getSize()).toEqual({ width: 500, height: 250 });
    const none = await edited((doc) => {
      treeOf(doc).set(PDFName.MediaBox, doc.context.obj([0, 0, 0, 0]));
      doc.getPages()[0]!.node.delete(PDFName.MediaBox);
    });
    expect((await openPdf(none)).doc.getPages()[0]!.getSize()).toEqual({ width: 612, height: 792 });
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
  ])('reads a catalog %s by its /Pages, as pdfinfo reads it', async (_name, replacement) => {
    const bytes = Buffer.from(await edited(() => undefined));
    const at = bytes.indexOf('/Type /Catalog');
    expect(at).toBeGreaterThan(0);
    bytes.write(replacement, at, 'latin1'); // same length: the cross-reference table still holds
    const opened = await openPdf(bytes);
    expect(opened.pageCount).toBe(2);
    expect(opened.repairs).toContain('a document catalog without /Type /Catalog read by its /Pages');
  });

  it('refuses a catalog without /Pages', async () => {
    const bytes = Buffer.from(await edited(() => undefined));
    bytes.write('/Kind /Catalog\n/Paget', bytes.indexOf('/Type /Catalog\n/Pages'), 'latin1');
    const error = await refusal(openPdf(bytes));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toBe(
      'The PDF could not be read: its document catalog (/Root) is missing or is not a /Type /Catalog dictionary.',
    );
  });

  it('describes an encrypted file whose catalog cannot be read, without its pages', async () => {
    const bytes = Buffer.from(await encryptedPdf());
    bytes.write('/Kind /Catalog\n/Paget', bytes.indexOf('/Type /Catalog\n/Pages'), 'latin1');
    const opened = await openPdf(bytes, { allowEncrypted: true });
    expect(opened).toMatchObject({ encrypted: true, pageCount: undefined, version: '1.7' });
  });

  it('reads a later version from the catalog', async () => {
    const bytes = await edited((doc) => doc.catalog.set(PDFName.of('Version'), PDFName.of('2.0')));
    expect((await openPdf(bytes)).version).toBe('2.0');
  });
});
