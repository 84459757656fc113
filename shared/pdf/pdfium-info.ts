import { discardPdfiumAfter, loadPdfiumApi, type PdfiumApi } from '#shared/pdf/pdfium.ts';

/** What pdfium reads of a document: what /pdf-info reports of an encrypted file. */
export interface PdfiumInfo {
  pages: number;
  /** Points, as displayed (crop box clipped to the media box, rotation applied), for `maxSizes` pages. */
  pageSizes: Array<{ width: number; height: number }>;
  /** Info entries by key, decrypted; absent when empty. */
  info: Map<string, string>;
}

const infoKeys = ['Title', 'Author', 'Creator', 'Producer'];

const round = (value: number) => Math.round(value * 100) / 100;

function metaText(api: PdfiumApi, document: number, key: string): string | undefined {
  const tag = api.wasmExports.malloc(key.length + 1);
  try {
    api.HEAPU8.set(Buffer.from(`${key}\0`, 'latin1'), tag);
    const length = api._FPDF_GetMetaText(document, tag, 0, 0);
    if (length <= 2) return undefined;
    const buffer = api.wasmExports.malloc(length);
    try {
      api._FPDF_GetMetaText(document, tag, buffer, length);
      const text = Buffer.from(api.HEAPU8.subarray(buffer, buffer + length - 2)).toString('utf16le');
      return text === '' ? undefined : text;
    } finally {
      api.wasmExports.free(buffer);
    }
  } finally {
    api.wasmExports.free(tag);
  }
}

/**
 * Reads the page count, the first `maxSizes` page sizes and the document information with pdfium,
 * which decrypts a file protected without a user password (permissions only) as viewers open it.
 * Undefined when pdfium cannot open the file without a password, or fails on it.
 */
export async function readWithPdfium(bytes: Uint8Array, maxSizes: number): Promise<PdfiumInfo | undefined> {
  let api: PdfiumApi;
  try {
    api = await loadPdfiumApi();
  } catch {
    return undefined;
  }
  const data = api.wasmExports.malloc(bytes.length);
  const size = api.wasmExports.malloc(8);
  let document = 0;
  let trapped = false;
  try {
    api.HEAPU8.set(bytes, data);
    document = api._FPDF_LoadMemDocument(data, bytes.length, 0);
    if (!document) return undefined;
    const pages = api._FPDF_GetPageCount(document);
    if (pages <= 0) return undefined;
    const pageSizes: PdfiumInfo['pageSizes'] = [];
    for (let index = 0; index < Math.min(pages, maxSizes); index += 1) {
      if (!api._FPDF_GetPageSizeByIndexF(document, index, size)) return undefined;
      const view = new DataView(api.HEAPU8.buffer, size, 8);
      pageSizes.push({ width: round(view.getFloat32(0, true)), height: round(view.getFloat32(4, true)) });
    }
    const info = new Map<string, string>();
    for (const key of infoKeys) {
      const text = metaText(api, document, key);
      if (text !== undefined) info.set(key, text);
    }
    return { pages, pageSizes, info };
  } catch (error) {
    discardPdfiumAfter(error);
    if (!(error instanceof WebAssembly.RuntimeError)) throw error;
    trapped = true;
    return undefined;
  } finally {
    // A trapped instance is discarded whole; its memory is not touched again.
    if (!trapped) cleanUp(api, document, [size, data]);
  }
}

function cleanUp(api: PdfiumApi, document: number, buffers: number[]): void {
  if (document) api._FPDF_CloseDocument(document);
  for (const buffer of buffers) api.wasmExports.free(buffer);
}
