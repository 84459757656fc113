import { createHash } from 'node:crypto';
import { log } from '#shared/log.ts';
import { discardPdfiumAfter, loadPdfiumApi, type PdfiumApi } from '#shared/pdf/pdfium.ts';

/** The largest size, in points, an image is drawn at on any page. */
export interface DrawnSize {
  width: number;
  height: number;
}

/** FPDF_PAGEOBJ_IMAGE and FPDF_PAGEOBJ_FORM (fpdf_edit.h). */
const IMAGE_OBJECT = 3;
const FORM_OBJECT = 5;
/** Bounds on the walk: past them the placements are taken as unknown. */
const MAX_FORM_DEPTH = 32;
const MAX_OBJECTS = 2_000_000;

/** The linear part (a b c d) of a PDF matrix: where the image's unit square's sides go. */
type Linear = readonly [number, number, number, number];
const identity: Linear = [1, 0, 0, 1];

/** Row-vector convention, as PDF defines it: the child's space first, then its parent's. */
const compose = (child: Linear, parent: Linear): Linear => [
  child[0] * parent[0] + child[1] * parent[2],
  child[0] * parent[1] + child[1] * parent[3],
  child[2] * parent[0] + child[3] * parent[2],
  child[2] * parent[1] + child[3] * parent[3],
];

/** An image stream's identity: the hash of its bytes as stored, which pdfium and pdf-lib both read. */
export const imageKey = (stored: Uint8Array): string => createHash('sha256').update(stored).digest('base64');

class Incomplete extends Error {}

/** Walks every page's objects, into form XObjects, recording each image's largest drawn size. */
class PlacementWalk {
  readonly sizes = new Map<string, DrawnSize>();
  #visited = 0;
  readonly #api: PdfiumApi;
  readonly #matrix: number;

  constructor(api: PdfiumApi, matrix: number) {
    this.#api = api;
    this.#matrix = matrix;
  }

  page(page: number): void {
    const count = this.#api._FPDFPage_CountObjects(page);
    for (let index = 0; index < count; index += 1) {
      this.#object(this.#api._FPDFPage_GetObject(page, index), identity, 0);
    }
  }

  #object(object: number, parent: Linear, depth: number): void {
    this.#visited += 1;
    if (object === 0 || this.#visited > MAX_OBJECTS) throw new Incomplete('too many page objects');
    const type = this.#api._FPDFPageObj_GetType(object);
    if (type !== IMAGE_OBJECT && type !== FORM_OBJECT) return;
    const placed = compose(this.#linear(object), parent);
    if (type === FORM_OBJECT) {
      if (depth >= MAX_FORM_DEPTH) throw new Incomplete('form XObjects nested too deep');
      const count = this.#api._FPDFFormObj_CountObjects(object);
      for (let index = 0; index < count; index += 1) {
        this.#object(this.#api._FPDFFormObj_GetObject(object, index), placed, depth + 1);
      }
      return;
    }
    const key = this.#imageKey(object);
    const width = Math.hypot(placed[0], placed[1]);
    const height = Math.hypot(placed[2], placed[3]);
    const known = this.sizes.get(key);
    this.sizes.set(key, {
      width: Math.max(width, known?.width ?? 0),
      height: Math.max(height, known?.height ?? 0),
    });
  }

  /** The object's matrix as pdfium places it in its parent (the page, or the form XObject). */
  #linear(object: number): Linear {
    if (!this.#api._FPDFPageObj_GetMatrix(object, this.#matrix)) throw new Incomplete('no matrix');
    // Read afresh each time: the WebAssembly memory (and so its buffer) may have grown.
    const view = new DataView(this.#api.HEAPU8.buffer, this.#matrix, 16);
    return [
      view.getFloat32(0, true),
      view.getFloat32(4, true),
      view.getFloat32(8, true),
      view.getFloat32(12, true),
    ];
  }

  #imageKey(object: number): string {
    const length = this.#api._FPDFImageObj_GetImageDataRaw(object, 0, 0);
    const buffer = this.#api.wasmExports.malloc(Math.max(1, length));
    try {
      this.#api._FPDFImageObj_GetImageDataRaw(object, buffer, length);
      return imageKey(this.#api.HEAPU8.subarray(buffer, buffer + length));
    } finally {
      this.#api.wasmExports.free(buffer);
    }
  }
}

/**
 * The largest size each image XObject is drawn at on the document's pages, keyed by `imageKey` of
 * its stored bytes, as PDFium lays out the page contents (form XObjects included, with their
 * matrices). Images drawn only elsewhere (patterns, annotation appearances, Type 3 glyphs) are
 * absent. Undefined when the placements cannot all be read: PDFium refuses the file or a page, or
 * the walk passes its bounds.
 */
export async function drawnImageSizes(pdf: Uint8Array): Promise<Map<string, DrawnSize> | undefined> {
  let api: PdfiumApi;
  try {
    api = await loadPdfiumApi();
  } catch (error) {
    log('error', 'pdfium could not be loaded to find image placements', { error: String(error) });
    return undefined;
  }
  const data = api.wasmExports.malloc(pdf.length);
  const matrix = api.wasmExports.malloc(24);
  let document = 0;
  let trapped = false;
  try {
    api.HEAPU8.set(pdf, data);
    document = api._FPDF_LoadMemDocument(data, pdf.length, 0);
    if (!document) return undefined;
    const walk = new PlacementWalk(api, matrix);
    const pages = api._FPDF_GetPageCount(document);
    for (let index = 0; index < pages; index += 1) {
      const page = api._FPDF_LoadPage(document, index);
      if (!page) return undefined;
      try {
        walk.page(page);
      } finally {
        api._FPDF_ClosePage(page);
      }
    }
    return walk.sizes;
  } catch (error) {
    // Whatever went wrong, compression goes on with the page-size bound for every image.
    trapped = error instanceof WebAssembly.RuntimeError;
    discardPdfiumAfter(error);
    log('info', 'image placements not read; images are sized by the largest page', { reason: String(error) });
    return undefined;
  } finally {
    // After a trap the instance is discarded and its memory not to be trusted: nothing to free.
    if (!trapped) {
      if (document) api._FPDF_CloseDocument(document);
      api.wasmExports.free(matrix);
      api.wasmExports.free(data);
    }
  }
}
