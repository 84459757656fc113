import { readFile, rm } from 'node:fs/promises';
import sharp from 'sharp';
import { ApiError } from '#shared/errors.ts';
import { decodeToPng } from '#shared/image/decode-to-png.ts';
import { isImageInputFormat } from '#shared/image/formats.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { maxOcrPixels, ocrDpi } from '#shared/ocr/limits.ts';
import { PdfiumPages } from '#shared/pdf/pdfium-pages.ts';
import { type RangeTerm, resolveRanges } from '#shared/pdf/ranges.ts';
import { maxRasterSourceBytes, openForRendering, type PageSize } from '#shared/pdf/rasterize.ts';
import type { SourceFormat } from '#shared/source/formats.ts';
import { formatBytes } from '#shared/units.ts';
import type { Workspace } from '#shared/workspace.ts';

/** One page ready for Tesseract: a PNG in the workspace, and its resolution when known. */
export interface PageImage {
  path: string;
  dpi: number | undefined;
}

/** The pages of a source, rendered or decoded one at a time (a page's pixels are freed before the next). */
export interface PageImages {
  /** The page numbers to read, in order. */
  pages: readonly number[];
  image(page: number): Promise<PageImage>;
  close(): void;
}

/** Formats whose stated resolution libvips reads. */
const densityReadable: ReadonlySet<SourceFormat> = new Set(['jpg', 'png', 'webp', 'tiff']);

/** A stated resolution below this is taken for none (72 dpi is a screen's default, not a scan's). */
const minStatedDpi = 100;

/** The scale that brings `pixels` within the OCR pixel bound (1 when they fit). */
export const fittingScale = (pixels: number) =>
  pixels <= maxOcrPixels ? 1 : Math.sqrt(maxOcrPixels / pixels);

/**
 * The dpi a PDF page is rendered at: 300, or less for a page that would pass the pixel bound, down
 * to a fraction of one dpi for a page hundreds of metres wide (a whole number would floor there and
 * break the bound).
 */
export function renderDpi(size: PageSize): number {
  const pixelsAt = (dpi: number) => Math.ceil((size.width * dpi) / 72) * Math.ceil((size.height * dpi) / 72);
  if (pixelsAt(ocrDpi) <= maxOcrPixels) return ocrDpi;
  let dpi = ocrDpi * fittingScale(pixelsAt(ocrDpi));
  if (dpi >= 2) dpi = Math.floor(dpi);
  // Each side is rounded up to whole pixels: step down until the rounded sides fit too.
  while (pixelsAt(dpi) > maxOcrPixels) dpi = dpi >= 2 ? dpi - 1 : dpi * 0.99;
  return dpi;
}

/**
 * An image source as one page: upright, first frame, flattened on white, scaled down to the pixel
 * bound when larger. Its own resolution is kept when it states a plausible one (Tesseract then
 * sizes the PDF page by it); else Tesseract estimates it from the text.
 */
async function imagePages(
  source: { path: string; format: SourceFormat },
  pages: readonly RangeTerm[] | undefined,
  workspace: Workspace,
): Promise<PageImages> {
  if (pages) resolveRanges(pages, 1, 'pages');
  return {
    pages: [1],
    async image() {
      const format = source.format;
      if (!isImageInputFormat(format)) throw new Error(`not an image: ${format}`);
      const stated = densityReadable.has(format)
        ? await sharp(source.path)
            .metadata()
            .then((meta) => meta.density)
            .catch(() => undefined)
        : undefined;
      const decoded = await decodeToPng(source.path, format, workspace);
      const scale = fittingScale(decoded.width * decoded.height);
      const dpi = stated !== undefined && stated >= minStatedDpi ? stated * scale : undefined;
      const opaque = await sharp(decoded.path)
        .metadata()
        .then((meta) => !meta.hasAlpha);
      // The decoded PNG is Tesseract's input as it stands when nothing is left to do to it.
      if (opaque && scale === 1) return { path: decoded.path, dpi };
      const path = await workspace.file('page-1.png');
      try {
        let image = sharp(decoded.path, { limitInputPixels: false }).flatten({ background: '#ffffff' });
        if (scale < 1)
          image = image.resize(Math.floor(decoded.width * scale), Math.floor(decoded.height * scale));
        await image.png({ compressionLevel: 1 }).toFile(path);
      } catch (error) {
        mapNativeError('sharp', error);
      } finally {
        await rm(decoded.path, { force: true });
      }
      return { path, dpi };
    },
    close() {},
  };
}

/** A PDF's pages, rendered by PDFium (as /pdf-to-image renders them) at 300 dpi, or what fits. */
async function pdfPages(
  source: { path: string },
  pages: readonly RangeTerm[] | undefined,
  workspace: Workspace,
  deadline: number | undefined,
): Promise<PageImages> {
  const bytes = await readFile(source.path);
  if (bytes.length > maxRasterSourceBytes) {
    throw new ApiError(
      'source_too_large',
      `PDFs over ${formatBytes(maxRasterSourceBytes)} cannot be rendered for OCR, whatever the tier.`,
    );
  }
  const opened = await openForRendering(bytes, { pages });
  const document = new PdfiumPages(opened.renderable, { deadline });
  return {
    pages: opened.pages,
    async image(page) {
      const dpi = renderDpi(opened.sizes.get(page)!);
      const bitmap = await document.render(page, dpi / 72);
      const path = await workspace.file(`page-${page}.png`);
      await sharp(bitmap.data, { raw: { width: bitmap.width, height: bitmap.height, channels: 4 } })
        .removeAlpha()
        .withDensity(dpi)
        .png({ compressionLevel: 1 })
        .toFile(path);
      return { path, dpi };
    },
    close() {
      document.destroy();
    },
  };
}

/** The pages of an image or a PDF source, `pages` resolved against them (400 invalid_range past the end). */
export async function pageImages(
  source: { path: string; format: SourceFormat | undefined },
  pages: readonly RangeTerm[] | undefined,
  workspace: Workspace,
  deadline: number | undefined,
): Promise<PageImages> {
  if (source.format === 'pdf') return pdfPages(source, pages, workspace, deadline);
  if (source.format === undefined || !isImageInputFormat(source.format)) {
    throw new ApiError('unsupported_input_format', 'The source is neither an image nor a PDF.');
  }
  return imagePages({ path: source.path, format: source.format }, pages, workspace);
}
