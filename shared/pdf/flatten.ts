import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  type PDFPage,
  PDFRef,
  PDFStream,
} from 'pdf-lib';
import { ApiError } from '#shared/errors.ts';
import type { DrawingFonts } from '#shared/pdf/fonts.ts';
import { formFieldsOf, needsAppearances, redrawField } from '#shared/pdf/forms.ts';
import { type Matrix, multiply, type PageStamper } from '#shared/pdf/stamp.ts';

const key = {
  annots: PDFName.of('Annots'),
  subtype: PDFName.of('Subtype'),
  link: PDFName.of('Link'),
  ap: PDFName.of('AP'),
  n: PDFName.of('N'),
  as: PDFName.of('AS'),
  f: PDFName.of('F'),
  rect: PDFName.of('Rect'),
  bbox: PDFName.of('BBox'),
  matrix: PDFName.of('Matrix'),
  resources: PDFName.of('Resources'),
  acroForm: PDFName.of('AcroForm'),
  dr: PDFName.of('DR'),
};

/** Annotation flags (ISO 32000-2, 12.5.3) under which an annotation is not shown. */
const hidden = 2;
const noView = 32;

/** The appearance a viewer shows for the annotation: /AP /N, or its state /AS of /N. */
function normalAppearance(annotation: PDFDict): PDFObject | undefined {
  const appearances = annotation.lookup(key.ap);
  if (!(appearances instanceof PDFDict)) return undefined;
  const normal = appearances.get(key.n);
  const looked = annotation.context.lookup(normal);
  if (looked instanceof PDFDict && !(looked instanceof PDFStream)) {
    const state = annotation.lookup(key.as);
    return state instanceof PDFName ? looked.get(state) : undefined;
  }
  return normal;
}

const numbersOf = (value: PDFObject | undefined): number[] | undefined => {
  if (!(value instanceof PDFArray)) return undefined;
  const numbers = value.asArray().map((item) => (item instanceof PDFNumber ? item.asNumber() : Number.NaN));
  return numbers.every(Number.isFinite) ? numbers : undefined;
};

/**
 * Where the appearance goes (ISO 32000-2, 12.5.5): its bounding box, moved by its own matrix, is
 * fitted to the annotation's rectangle. Undefined when either box is missing or empty.
 */
export function appearanceMatrix(
  rect: readonly number[],
  bbox: readonly number[],
  matrix: Matrix = [1, 0, 0, 1, 0, 0],
): Matrix | undefined {
  const [x1, y1, x2, y2] = rect as [number, number, number, number];
  const corners = [
    [bbox[0]!, bbox[1]!],
    [bbox[2]!, bbox[1]!],
    [bbox[0]!, bbox[3]!],
    [bbox[2]!, bbox[3]!],
  ].map(([x, y]) => [
    matrix[0] * x! + matrix[2] * y! + matrix[4],
    matrix[1] * x! + matrix[3] * y! + matrix[5],
  ]);
  const xs = corners.map((corner) => corner[0]!);
  const ys = corners.map((corner) => corner[1]!);
  const [left, right, bottom, top] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const width = right - left;
  const height = top - bottom;
  const rectWidth = Math.abs(x2 - x1);
  const rectHeight = Math.abs(y2 - y1);
  if (!(width > 0 && height > 0 && rectWidth > 0 && rectHeight > 0)) return undefined;
  const scaleX = rectWidth / width;
  const scaleY = rectHeight / height;
  return multiply([1, 0, 0, 1, -left, -bottom], [scaleX, 0, 0, scaleY, Math.min(x1, x2), Math.min(y1, y2)]);
}

/** The appearance stream as a form that can be drawn: a reference, /Subtype /Form, resources. */
function drawableForm(
  page: PDFPage,
  appearance: PDFObject | undefined,
  formResources: PDFObject | undefined,
) {
  const { context } = page.doc;
  const stream = context.lookup(appearance);
  if (!(stream instanceof PDFStream)) return undefined;
  const bbox = numbersOf(stream.dict.lookup(key.bbox));
  if (bbox?.length !== 4) return undefined;
  stream.dict.set(PDFName.Type, PDFName.of('XObject'));
  stream.dict.set(key.subtype, PDFName.of('Form'));
  // Old forms leave fonts to the form's default resources, which go with the form.
  if (!stream.dict.has(key.resources) && formResources) stream.dict.set(key.resources, formResources);
  const ref = appearance instanceof PDFRef ? appearance : context.register(stream);
  const matrix = numbersOf(stream.dict.lookup(key.matrix));
  return { ref, bbox, matrix: matrix?.length === 6 ? (matrix as unknown as Matrix) : undefined };
}

/**
 * Draws each annotation of the page that shows something into the page's content, as a viewer
 * shows it, and removes it; links stay (they are navigation, not drawing). Annotations that are
 * hidden, or have no appearance of their own, are removed.
 */
function flattenPage(page: PDFPage, stamper: PageStamper, formResources: PDFObject | undefined): void {
  const annotations = page.node.lookup(key.annots);
  if (!(annotations instanceof PDFArray)) return;
  const kept: PDFObject[] = [];
  const draws: Array<{ form: PDFRef; at: Matrix }> = [];
  for (const item of annotations.asArray()) {
    const annotation = page.doc.context.lookup(item);
    if (!(annotation instanceof PDFDict)) continue;
    if (annotation.lookup(key.subtype) === key.link) {
      kept.push(item);
      continue;
    }
    const flags = annotation.lookup(key.f);
    const flagBits = flags instanceof PDFNumber ? flags.asNumber() : 0;
    if (flagBits & (hidden | noView)) continue;
    const form = drawableForm(page, normalAppearance(annotation), formResources);
    const rect = numbersOf(annotation.lookup(key.rect));
    const at = form && rect?.length === 4 ? appearanceMatrix(rect, form.bbox, form.matrix) : undefined;
    if (form && at) draws.push({ form: form.ref, at });
  }
  stamper.stampAll(page, draws, 'over');
  if (kept.length > 0) page.node.set(key.annots, page.doc.context.obj(kept));
  else page.node.delete(key.annots);
}

/**
 * Draws the form fields and annotations of every page into the page content and removes them, and
 * the interactive form with them. Field appearances that are missing, or stale because the form
 * asks viewers to redraw them, are drawn first, in fonts that have their characters.
 */
export async function flattenDocument(
  doc: PDFDocument,
  fonts: DrawingFonts,
  stamper: PageStamper,
): Promise<void> {
  const redrawAll = needsAppearances(doc);
  for (const field of formFieldsOf(doc)) {
    if (!redrawAll && !field.needsAppearancesUpdate()) continue;
    try {
      await redrawField(field, fonts);
    } catch (error) {
      // A stored value no font here draws keeps the appearance the file has.
      if (!(error instanceof ApiError)) throw error;
    }
  }
  const form = doc.catalog.lookup(key.acroForm);
  const formResources = form instanceof PDFDict ? form.get(key.dr) : undefined;
  for (const page of doc.getPages()) flattenPage(page, stamper, formResources);
  doc.catalog.delete(key.acroForm);
}
