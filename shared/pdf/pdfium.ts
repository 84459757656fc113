import type { PDFiumLibrary } from '@hyzyla/pdfium';

/**
 * The few PDFium C functions pdf-compress, pdf-info and pdf-to-text call that the wrapper has no
 * method for (page objects, their matrices, form XObjects' contents, document information, text
 * and character boxes). They are exported by the same WebAssembly module.
 */
export interface PdfiumApi {
  HEAPU8: Uint8Array;
  wasmExports: { malloc(size: number): number; free(pointer: number): void };
  _FPDF_LoadMemDocument(data: number, size: number, password: number): number;
  _FPDF_CloseDocument(document: number): void;
  _FPDF_GetPageCount(document: number): number;
  _FPDF_LoadPage(document: number, index: number): number;
  _FPDF_ClosePage(page: number): void;
  _FPDFPage_CountObjects(page: number): number;
  _FPDFPage_GetObject(page: number, index: number): number;
  _FPDFPageObj_GetType(object: number): number;
  /** Writes the object's FS_MATRIX (six 32-bit floats a b c d e f) at `matrix`. */
  _FPDFPageObj_GetMatrix(object: number, matrix: number): number;
  _FPDFFormObj_CountObjects(form: number): number;
  _FPDFFormObj_GetObject(form: number, index: number): number;
  /** The image's stream data as stored (still encoded); answers its length. */
  _FPDFImageObj_GetImageDataRaw(image: number, buffer: number, length: number): number;
  /** Writes the page's displayed size (FS_SIZEF: two 32-bit floats) at `size`; 0 on failure. */
  _FPDF_GetPageSizeByIndexF(document: number, index: number, size: number): number;
  /** An Info entry as UTF-16LE with a terminating zero; answers the bytes it needs. */
  _FPDF_GetMetaText(document: number, tag: number, buffer: number, length: number): number;
  _FPDFText_LoadPage(page: number): number;
  _FPDFText_ClosePage(textPage: number): void;
  _FPDFText_CountChars(textPage: number): number;
  _FPDFText_GetUnicode(textPage: number, index: number): number;
  /** 1 for a space or line break pdfium added between words or lines, 0 for one the page draws. */
  _FPDFText_IsGenerated(textPage: number, index: number): number;
  /** Writes the character's box from its advance and the font's ascent and descent (FS_RECTF: left, top, right, bottom). */
  _FPDFText_GetLooseCharBox(textPage: number, index: number, rect: number): number;
}

interface Pdfium {
  library: PDFiumLibrary;
  api: PdfiumApi;
}

/**
 * pdfium compiled to WebAssembly, instantiated once per container on first use (about 40 ms) and
 * shared by every request after it. Documents are opened and destroyed per request.
 */
let instance: Promise<Pdfium> | undefined;

function loadInstance(): Promise<Pdfium> {
  instance ??= (async () => {
    let module: unknown;
    // Loaded on first use too: functions that reach pdfium only for a broken file (pdf-lib's
    // fallback) do not load it at init.
    const pdfium = await import('@hyzyla/pdfium');
    // PDFiumLibrary.init does the same, without handing back the module for the C calls above.
    const library = await pdfium.PDFiumLibrary.initBase({
      vendor: async (options) => {
        const loaded = await pdfium.PDFiumModule(options);
        module = loaded;
        return loaded;
      },
    });
    return { library, api: module as PdfiumApi };
  })().catch((error: unknown) => {
    instance = undefined;
    throw error;
  });
  return instance;
}

export async function loadPdfium(): Promise<PDFiumLibrary> {
  return (await loadInstance()).library;
}

/** The same instance's C functions, for what the wrapper does not offer. */
export async function loadPdfiumApi(): Promise<PdfiumApi> {
  return (await loadInstance()).api;
}

/**
 * After a WebAssembly trap the module's memory may be inconsistent: the next request gets a fresh
 * instance instead.
 */
export function discardPdfiumAfter(error: unknown): void {
  if (error instanceof WebAssembly.RuntimeError) {
    instance = undefined;
  }
}

/**
 * Whether pdfium opens the file at all (no page is read): the reference for lenient parsing. A file
 * it finds encrypted and cannot open without a password counts as read: its structure was sound
 * enough to find the security handler, and the objects pdf-lib cannot parse are the encrypted
 * object streams.
 */
export async function pdfiumReads(bytes: Uint8Array): Promise<boolean> {
  let library: PDFiumLibrary;
  try {
    library = await loadPdfium();
  } catch {
    return false;
  }
  try {
    (await library.loadDocument(bytes)).destroy();
    return true;
  } catch (error) {
    discardPdfiumAfter(error);
    return error instanceof Error && /^Password required or incorrect password$/.test(error.message);
  }
}
