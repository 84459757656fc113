import { PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { maxFormDraws } from '#shared/pdf/limits.ts';
import { PdfiumPages } from '#shared/pdf/pdfium-pages.ts';
import { guardRendering, jpxDeclaredPixels } from '#shared/pdf/render-guard.ts';
import { RenderThread, RenderTrap } from '#shared/pdf/render-thread.ts';
import {
  formCyclePdf,
  jp2Image,
  jpxPdf,
  patternCyclePdf,
  plainPdf,
  softMaskedPdf,
  stream,
} from '../../corpus/pdf.ts';
import { buildPdf } from '../../hardening/corpus/pdf.ts';

async function guarded(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes);
  const hazards = guardRendering(
    doc.context,
    doc.getPages().map((page) => page.node),
  );
  return { doc, hazards };
}

/** The names each form XObject of the document may still draw. */
function formNames(doc: PDFDocument): string[][] {
  return doc.context
    .enumerateIndirectObjects()
    .map(([, object]) => object)
    .filter((object): object is PDFRawStream => object instanceof PDFRawStream)
    .filter((stream) => stream.dict.get(PDFName.of('Subtype')) === PDFName.of('Form'))
    .map((form) => {
      const xobjects = form.dict.lookup(PDFName.of('Resources'), PDFDict).lookup(PDFName.of('XObject'));
      return xobjects instanceof PDFDict ? xobjects.keys().map((key) => key.asString()) : [];
    });
}

/** A chain of `depth` forms, each drawing the next one twice: no cycle, 2^depth drawings. */
function doublingChain(depth: number): Buffer {
  const forms = Array.from({ length: depth }, (_, index) => {
    const next = index + 1 < depth ? `/Resources << /XObject << /N ${6 + index} 0 R >> >>` : '';
    const draws = index + 1 < depth ? '/N Do /N Do' : '0 0 1 1 re f';
    return stream(`/Type /XObject /Subtype /Form /BBox [0 0 10 10] ${next}`, draws);
  });
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /XObject << /N 5 0 R >> >> >>',
    stream('', '/N Do'),
    ...forms,
  ]);
}

/** A chain of `depth` tiling patterns, each filling with the next one twice: no cycle, 2^depth cells. */
function doublingPatterns(depth: number): Buffer {
  const patterns = Array.from({ length: depth }, (_, index) => {
    const next =
      index + 1 < depth ? `/Resources << /Pattern << /P ${6 + index} 0 R >> >>` : '/Resources << >>';
    const fills =
      index + 1 < depth ? '/Pattern cs /P scn 0 0 20 20 re f /P scn 5 5 20 20 re f' : '0 0 5 5 re f';
    return stream(
      `/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 40 40] /XStep 40 /YStep 40 ${next}`,
      fills,
    );
  });
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Pattern << /P 5 0 R >> >> >>',
    stream('', '/Pattern cs /P scn 0 0 200 200 re f'),
    ...patterns,
  ]);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('guarding what pdfium renders', () => {
  it.each([
    ['a form that draws itself', formCyclePdf('self', 2), [[]]],
    ['two forms that draw each other', formCyclePdf('pair', 3), [['/F'], []]],
  ])('cuts the reference that closes the cycle of %s', async (_name, bytes, names) => {
    const { doc, hazards } = await guarded(bytes);
    expect(hazards.changes).toEqual(['form XObject cycle through /F cut']);
    expect(hazards.overdrawnPages).toEqual([]);
    expect(formNames(doc)).toEqual(names);
  });

  it("cuts a cycle through the page's resources, leaving the page's own reference", async () => {
    const { doc, hazards } = await guarded(formCyclePdf('inherited', 2));
    expect(hazards.changes).toEqual(['form XObject cycle through /F cut']);
    expect(formNames(doc)).toEqual([[]]);
    const page = doc.getPages()[0]!.node.Resources()?.lookup(PDFName.of('XObject'), PDFDict);
    expect(page?.keys().map((key) => key.asString())).toEqual(['/F']);
  });

  it('cuts a tiling pattern that fills itself, leaving the page its own reference', async () => {
    const { doc, hazards } = await guarded(patternCyclePdf(2));
    expect(hazards).toEqual({ changes: ['pattern cycle through /P cut'], overdrawnPages: [] });
    const resources = doc.getPages()[0]!.node.Resources()!;
    const pattern = doc.context.lookup(resources.lookup(PDFName.of('Pattern'), PDFDict).get(PDFName.of('P')));
    expect(pattern).toBeInstanceOf(PDFRawStream);
    const own = (pattern as PDFRawStream).dict.lookup(PDFName.of('Resources'), PDFDict);
    expect(own.lookup(PDFName.of('Pattern'), PDFDict).keys()).toEqual([]);
  });

  it(`counts nested patterns as nested forms: past ${maxFormDraws} cells the page is reported`, async () => {
    expect((await guarded(doublingPatterns(10))).hazards.overdrawnPages).toEqual([]);
    expect((await guarded(doublingPatterns(20))).hazards.overdrawnPages).toEqual([1]);
  });

  it('leaves a sound document as it is', async () => {
    const { hazards } = await guarded(await plainPdf(2));
    expect(hazards).toEqual({ changes: [], overdrawnPages: [] });
  });

  it(`reports a page whose forms, without any cycle, would be drawn more than ${maxFormDraws} times`, async () => {
    expect((await guarded(doublingChain(10))).hazards.overdrawnPages).toEqual([]);
    expect((await guarded(doublingChain(20))).hazards.overdrawnPages).toEqual([1]);
  });

  it('reads the size a JPEG 2000 codestream states', async () => {
    expect(jpxDeclaredPixels(await jp2Image(64, 48))).toBe(64 * 48);
    expect(jpxDeclaredPixels(Buffer.from('not a codestream'))).toBeUndefined();
  });

  it('leaves out a JPEG 2000 image that states more pixels than images may have, and keeps a sound one', async () => {
    expect((await guarded(await jpxPdf())).hazards.changes).toEqual([]);
    const { hazards } = await guarded(await jpxPdf({ declaredSide: 16_000 }));
    expect(hazards.changes).toEqual(['JPEG 2000 image 5 0 R left out']);
  });
});

/**
 * Makes the next `times` renders of pages 200 pt wide (the JPEG 2000 fixture's) fail as a trap or
 * abort inside pdfium's thread would; other pages render as usual.
 */
function trapNextRender(times = 1): void {
  vi.restoreAllMocks();
  const original = RenderThread.prototype.render;
  let left = times;
  vi.spyOn(RenderThread.prototype, 'render').mockImplementation(async function (this: RenderThread, ...args) {
    const bitmap = await original.apply(this, args);
    if (left === 0 || bitmap.width !== 200 * args[1]) return bitmap;
    left -= 1;
    throw new RenderTrap('RuntimeError: memory access out of bounds');
  });
}

/** RGB at (x, y) from the top left of a rendered BGRA-ordered RGBA bitmap. */
const pixel = (bitmap: { width: number; data: Uint8Array }, x: number, y: number) => {
  const at = (y * bitmap.width + x) * 4;
  return [bitmap.data[at], bitmap.data[at + 1], bitmap.data[at + 2]];
};

describe('containing pdfium failures', () => {
  it('renders a page again without its JPEG 2000 images after a trap, on a new thread, and other documents go on', async () => {
    const healthy = new PdfiumPages(await plainPdf(2));
    expect((await healthy.render(1, 1)).width).toBe(300);

    const jpx = new PdfiumPages(await jpxPdf());
    trapNextRender();
    const reopened = vi.spyOn(RenderThread.prototype, 'open');
    const [page, other] = await Promise.all([jpx.render(1, 1), healthy.render(2, 1)]);
    expect(reopened).toHaveBeenCalledTimes(2); // the JPEG 2000 document's first thread, then a fresh one
    expect(pixel(page, 135, 120)).toEqual([255, 255, 255]); // the image is left out
    expect(pixel(page, 30, 170)).toEqual([0, 0, 255]); // the rest of the page is drawn
    expect(other.width).toBe(300);
    expect((await healthy.render(1, 1)).height).toBe(200);
    healthy.destroy();
    jpx.destroy();
  });

  it('answers 4xx naming the page when the page cannot be rendered even so', async () => {
    const jpx = new PdfiumPages(await jpxPdf());
    trapNextRender(2);
    const error = await jpx.render(1, 1).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_source_file' });
    expect((error as Error).message).toContain('page 1 could not be rendered');
    const square = new PdfiumPages(await formCyclePdf('self', 1));
    trapNextRender();
    await expect(square.render(1, 1)).rejects.toMatchObject({ code: 'invalid_source_file' });
    expect((await new PdfiumPages(await plainPdf(1)).render(1, 1)).width).toBe(300);
  });

  it('ends a render that passes its limit, answering 4xx naming the limit, and renders on after it', async () => {
    const slow = new PdfiumPages(softMaskedPdf(100), { pageLimitMs: 300 });
    const error = await slow.render(1, 300 / 72).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_source_file' });
    expect((error as Error).message).toBe(
      "The PDF's page 1 could not be rendered within 0.3 s, the limit for one page. Leave it out with `pages`.",
    );
    const healthy = new PdfiumPages(await plainPdf(1), { pageLimitMs: 10_000 });
    expect((await healthy.render(1, 1)).width).toBe(300);
    healthy.destroy();
  });

  it('renders within the time the request has left when that is less than the page limit', async () => {
    const slow = new PdfiumPages(softMaskedPdf(100), { deadline: Date.now() + 2_500 });
    const error = await slow.render(1, 300 / 72).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: 'invalid_source_file' });
    expect((error as Error).message).toMatch(/within the 1 s left of the request's time limit/);
  });
});
