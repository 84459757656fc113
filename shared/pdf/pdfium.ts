import { PDFiumLibrary } from '@hyzyla/pdfium';

/**
 * pdfium compiled to WebAssembly, instantiated once per container on first use (about 40 ms) and
 * shared by every request after it. Documents are opened and destroyed per request.
 */
let library: Promise<PDFiumLibrary> | undefined;

export function loadPdfium(): Promise<PDFiumLibrary> {
  library ??= PDFiumLibrary.init().catch((error: unknown) => {
    library = undefined;
    throw error;
  });
  return library;
}

/**
 * After a WebAssembly trap the module's memory may be inconsistent: the next request gets a fresh
 * instance instead.
 */
export function discardPdfiumAfter(error: unknown): void {
  if (error instanceof WebAssembly.RuntimeError) library = undefined;
}
