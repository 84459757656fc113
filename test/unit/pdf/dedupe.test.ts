import {
  PDFArray,
  PDFDict,
  PDFDocument,
  type PDFImage,
  PDFName,
  type PDFPage,
  PDFRawStream,
  type PDFRef,
  StandardFonts,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { storeIdenticalOnce } from '#shared/pdf/dedupe.ts';
import { photo, renderPage } from './fixtures.ts';

const images = (doc: PDFDocument) =>
  doc.context
    .enumerateIndirectObjects()
    .filter(
      ([, object]) =>
        object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
    );

/** The reference a page's resources give an XObject name. */
const xObjectOf = (doc: PDFDocument, index: number, name: string) => {
  const resources = doc.getPage(index).node.Resources();
  const xObjects = resources?.lookup(PDFName.of('XObject'), PDFDict);
  return xObjects?.get(PDFName.of(name)) as PDFRef;
};

/** The one content stream of a page drawn by pdf-lib (a reference, or an array holding one). */
const contentOf = (page: PDFPage) => {
  const contents = page.node.get(PDFName.of('Contents'));
  return contents instanceof PDFArray ? contents.get(0) : contents;
};

/** Saves, reloads and renders each page, so that what a viewer shows is compared. */
async function renderAll(bytes: Uint8Array, pages: number) {
  return Promise.all(Array.from({ length: pages }, (_, index) => renderPage(bytes, index)));
}

describe('storeIdenticalOnce', () => {
  it('stores a photo embedded twice once, and every page still draws it', async () => {
    const jpeg = await (await photo(400, 300)).jpeg().toBuffer();
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let index = 0; index < 3; index += 1) {
      const page = doc.addPage([200, 150]);
      page.drawImage(await doc.embedJpg(jpeg), { x: 0, y: 0, width: 100, height: 150 });
      page.drawText(`page ${index + 1}`, { x: 110, y: 70, size: 12, font });
    }
    const before = await doc.save();
    const reloaded = await PDFDocument.load(before);
    expect(images(reloaded)).toHaveLength(3);

    expect(storeIdenticalOnce(reloaded)).toBe(2);
    const after = await reloaded.save();
    const out = await PDFDocument.load(after);
    expect(images(out)).toHaveLength(1);
    expect(after.length).toBeLessThan(before.length - 2 * jpeg.length * 0.9);
    const [was, is] = [await renderAll(before, 3), await renderAll(after, 3)];
    for (const [index, page] of is.entries()) {
      expect(Buffer.compare(Buffer.from(page.data), Buffer.from(was[index]!.data))).toBe(0);
    }
  });

  it('never merges pages or annotations, however equal', async () => {
    const doc = await PDFDocument.create();
    const note = () =>
      doc.context.register(
        doc.context.obj({
          Type: 'Annot',
          Subtype: 'Link',
          Rect: [0, 0, 50, 50],
          URI: 'https://example.com/',
        }),
      );
    for (let index = 0; index < 2; index += 1) {
      const page = doc.addPage([100, 100]);
      page.drawRectangle({ x: 10, y: 10, width: 20, height: 20 });
      page.node.set(PDFName.Annots, doc.context.obj([note()]));
    }
    const reloaded = await PDFDocument.load(await doc.save());
    const contents = reloaded.getPages().map(contentOf);

    expect(storeIdenticalOnce(reloaded)).toBe(1);
    const [first, second] = reloaded.getPages();
    expect(first!.ref).not.toBe(second!.ref);
    const annotations = [first!, second!].map((page) => page.node.Annots()?.get(0));
    expect(annotations[0]).not.toBe(annotations[1]);
    // Their equal content streams are the one thing shared.
    expect(contents[0]).not.toBe(contents[1]);
    expect(contentOf(first!)).toBe(contentOf(second!));
  });

  it('compares what objects refer to at any depth, and leaves reference cycles as they are', async () => {
    const doc = await PDFDocument.create();
    const { context } = doc;
    const jpegs = await Promise.all(
      [400, 401].map(async (width) => (await photo(width, 300)).jpeg().toBuffer()),
    );
    const [red, blue] = (await Promise.all(jpegs.map((jpeg) => doc.embedJpg(jpeg)))) as [PDFImage, PDFImage];
    await Promise.all([red, blue].map((image) => image.embed()));
    const form = (content: string, next?: PDFRef) =>
      context.register(
        context.stream(content, {
          Type: 'XObject',
          Subtype: 'Form',
          BBox: [0, 0, 10, 10],
          ...(next && { Resources: { XObject: { Next: next } } }),
        }),
      );
    // Chains of 100 forms, each drawing the next: two equal, a third different only at its end.
    const chain = (end: string) => {
      let head = form(end);
      for (let link = 0; link < 100; link += 1) head = form('/Next Do', head);
      return head;
    };
    // Two equal pairs of forms that draw each other.
    const cycle = () => {
      const [a, b] = [context.nextRef(), context.nextRef()];
      context.assign(
        a,
        context.stream('/Next Do', {
          Type: 'XObject',
          Subtype: 'Form',
          BBox: [0, 0, 1, 1],
          Resources: { XObject: { Next: b } },
        }),
      );
      context.assign(
        b,
        context.stream('/Next Do', {
          Type: 'XObject',
          Subtype: 'Form',
          BBox: [0, 0, 1, 1],
          Resources: { XObject: { Next: a } },
        }),
      );
      return a;
    };
    const loop = cycle();
    const shown = {
      F1: form('/Next Do', red.ref),
      F2: form('/Next Do', blue.ref),
      A: chain('0 0 1 1 re f'),
      B: chain('0 0 1 1 re f'),
      C: chain('0 0 1 1 re S'),
      L1: loop,
      L2: cycle(),
      D1: form('/Next Do', loop),
      D2: form('/Next Do', loop),
    };
    const page = doc.addPage([100, 100]);
    for (const [name, ref] of Object.entries(shown)) page.node.setXObject(PDFName.of(name), ref);

    expect(storeIdenticalOnce(doc)).toBe(101 + 1);
    const shownAs = (name: string) => xObjectOf(doc, 0, name);
    expect(shownAs('F1')).not.toBe(shownAs('F2'));
    expect(shownAs('A')).toBe(shownAs('B'));
    expect(shownAs('A')).not.toBe(shownAs('C'));
    expect(shownAs('D1')).toBe(shownAs('D2'));
    expect(shownAs('L1')).not.toBe(shownAs('L2'));
    const next = (ref: PDFRef) =>
      (context.lookup(ref) as PDFRawStream).dict
        .lookup(PDFName.of('Resources'), PDFDict)
        .lookup(PDFName.of('XObject'), PDFDict)
        .get(PDFName.of('Next')) as PDFRef;
    expect(next(next(shownAs('L2')))).toBe(shownAs('L2'));
    let link = shownAs('A');
    for (let step = 0; step < 100; step += 1) link = next(link);
    expect((context.lookup(link) as PDFRawStream).getContentsString()).toBe('0 0 1 1 re f');
  });
});
