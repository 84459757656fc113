import { PDFiumPage } from '@hyzyla/pdfium';
import { PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { maxFormDraws } from '#shared/pdf/limits.ts';
import { loadPdfium } from '#shared/pdf/pdfium.ts';
import { PdfiumPages } from '#shared/pdf/pdfium-pages.ts';
import { guardRendering, jpxDeclaredPixels } from '#shared/pdf/render-guard.ts';
import { formCyclePdf, jp2Image, jpxPdf, plainPdf, stream } from '../../corpus/pdf.ts';
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
 * Makes pdfium trap, as a WebAssembly abort would, inside the engine itself, on the next `times`
 * renders of pages 200 pt wide (the JPEG 2000 fixture's); other pages render as usual.
 */
function trapNextRender(times = 1): void {
  vi.restoreAllMocks();
  const original = PDFiumPage.prototype.render;
  let left = times;
  vi.spyOn(PDFiumPage.prototype, 'render').mockImplementation(function (this: PDFiumPage, ...args) {
    if (left === 0 || this.getOriginalSize().originalWidth !== 200) return original.apply(this, args);
    left -= 1;
    const module = (this as unknown as { module: { _FPDF_ClosePage(page: number): void } }).module;
    module._FPDF_ClosePage(0x7fff_fff0); // reads far outside the engine's memory: a real trap
    throw new Error('the trap did not happen');
  });
}

/** RGB at (x, y) from the top left of a rendered BGRA-ordered RGBA bitmap. */
const pixel = (bitmap: { width: number; data: Uint8Array }, x: number, y: number) => {
  const at = (y * bitmap.width + x) * 4;
  return [bitmap.data[at], bitmap.data[at + 1], bitmap.data[at + 2]];
};

describe('containing pdfium failures', () => {
  it('renders a page again without its JPEG 2000 images after a trap, on a new instance, and other documents go on', async () => {
    const healthy = new PdfiumPages(await plainPdf(2));
    expect((await healthy.render(1, 1)).width).toBe(300);
    const before = await loadPdfium();

    const jpx = new PdfiumPages(await jpxPdf());
    trapNextRender();
    const [page, other] = await Promise.all([jpx.render(1, 1), healthy.render(2, 1)]);
    expect(await loadPdfium()).not.toBe(before);
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
});
