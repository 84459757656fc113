import type { PDFiumDocument, PDFiumLibrary } from '@hyzyla/pdfium';
import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { openPdf } from '#shared/pdf/open.ts';
import { discardPdfiumAfter, isCurrentPdfium, loadPdfium } from '#shared/pdf/pdfium.ts';
import { dropJpxImages } from '#shared/pdf/render-guard.ts';

export interface Bitmap {
  width: number;
  height: number;
  data: Uint8Array;
}

const unrenderable = (page: number) =>
  new ApiError(
    'invalid_source_file',
    `The PDF's page ${page} could not be rendered: the renderer failed on its content (an image or font it cannot decode).`,
  );

/**
 * One document rendered page by page with pdfium, contained: a WebAssembly trap or abort (pdfium
 * aborts on some images, JPEG 2000 ones above all) discards the engine instance, and the page is
 * rendered again on a fresh one without its JPEG 2000 images, as viewers render a page without an
 * image they cannot decode; when that fails too, the answer is a 4xx naming the page. A document
 * whose instance another request's failure discarded meanwhile is opened again on the new one,
 * so one file's failure never reaches another request.
 */
export class PdfiumPages {
  #bytes: Uint8Array;
  #library: PDFiumLibrary | undefined;
  #document: PDFiumDocument | undefined;
  #withoutJpx = false;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  async render(page: number, scale: number): Promise<Bitmap> {
    try {
      return await this.#renderOnce(page, scale);
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      this.#lost(error, page);
    }
    if (this.#withoutJpx || !(await this.#dropJpx())) throw unrenderable(page);
    try {
      return await this.#renderOnce(page, scale);
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      this.#lost(error, page);
      throw unrenderable(page);
    }
  }

  destroy(): void {
    // A document on a discarded instance is left with it: its memory is not to be trusted.
    if (this.#document && this.#library && isCurrentPdfium(this.#library)) this.#document.destroy();
    this.#document = undefined;
  }

  async #renderOnce(page: number, scale: number): Promise<Bitmap> {
    const document = await this.#open();
    return document.getPage(page - 1).render({ scale, render: 'bitmap' });
  }

  async #open(): Promise<PDFiumDocument> {
    if (this.#document && this.#library && isCurrentPdfium(this.#library)) return this.#document;
    this.#document = undefined;
    this.#library = await loadPdfium();
    try {
      this.#document = await this.#library.loadDocument(this.#bytes);
    } catch (error) {
      discardPdfiumAfter(error);
      if (error instanceof WebAssembly.RuntimeError) throw error;
      mapNativeError('pdfium', error);
    }
    return this.#document;
  }

  #lost(error: WebAssembly.RuntimeError, page: number): void {
    discardPdfiumAfter(error);
    this.#document = undefined;
    log('error', 'pdfium failed on a page; its instance was discarded', { page, reason: error.message });
  }

  /** Rewrites the document without its JPEG 2000 images; false when it has none. */
  async #dropJpx(): Promise<boolean> {
    this.#withoutJpx = true;
    const { doc } = await openPdf(this.#bytes, { maxPages: undefined });
    if (dropJpxImages(doc.context, true).length === 0) return false;
    this.#bytes = await doc.save({
      useObjectStreams: false,
      addDefaultPage: false,
      updateFieldAppearances: false,
    });
    return true;
  }
}
