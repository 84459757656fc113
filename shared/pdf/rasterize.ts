import { readFile, writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { displayedSize } from '#shared/pdf/info.ts';
import type { RasterFormat } from '#shared/pdf/limits.ts';
import { maxFormDraws, pdfLimits } from '#shared/pdf/limits.ts';
import { openPdf, pagesOf } from '#shared/pdf/open.ts';
import { PdfiumPages } from '#shared/pdf/pdfium-pages.ts';
import { pagesOf as pagesInRanges, type RangeTerm, resolveRanges } from '#shared/pdf/ranges.ts';
import { guardRendering } from '#shared/pdf/render-guard.ts';
import { dpiRange } from '#shared/pdf/schemas.ts';
import { writeZip } from '#shared/pdf/zip.ts';
import { formatBytes } from '#shared/units.ts';
import type { Workspace } from '#shared/workspace.ts';

/** The largest PDF handed to pdfium: its WebAssembly memory ends at 2 GB, pages must fit beside it. */
export const maxRasterSourceBytes = 500_000_000;

const lossyQuality = 85;

export interface RasterizeOptions {
  format: RasterFormat;
  dpi: number;
  /** Parsed `pages`; undefined: every page. */
  pages: readonly RangeTerm[] | undefined;
  /** Names the ZIP entries: `<baseName>-<page>.<ext>`. */
  baseName: string;
  workspace: Workspace;
  onProgress?: (percent: number) => void;
  /** When the request must have answered (epoch ms): no page renders past it. */
  deadline?: number | undefined;
}

export interface RasterizeResult {
  path: string;
  /** One page gives one image, several a ZIP of images. */
  kind: 'image' | 'zip';
  pages: number[];
}

export type PageSize = { width: number; height: number };

const pixelsAt = (size: PageSize, dpi: number) =>
  Math.ceil((size.width * dpi) / 72) * Math.ceil((size.height * dpi) / 72);

/** The highest dpi of the allowed range at which the page stays within the pixel limit, if any. */
function fittingDpi(size: PageSize): number | undefined {
  const estimate = Math.floor(72 * Math.sqrt(pdfLimits.maxRenderPixels / (size.width * size.height)));
  // Each side is rounded up to whole pixels, so the estimate may be one or two too high.
  for (let dpi = Math.min(estimate, dpiRange.max); dpi >= dpiRange.min; dpi -= 1) {
    if (pixelsAt(size, dpi) <= pdfLimits.maxRenderPixels) return dpi;
  }
  return undefined;
}

/**
 * Refuses, before anything is rendered, pages whose bitmap would be too large at this dpi: with
 * the dpi that fits every selected page, or, for a page too large even at the lowest dpi, as a
 * source that cannot be rendered.
 */
function checkPixels(sizes: ReadonlyMap<number, PageSize>, dpi: number): void {
  const limit = pdfLimits.maxRenderPixels;
  const tooLarge = [...sizes].filter(([, size]) => pixelsAt(size, dpi) > limit);
  const [first] = tooLarge;
  if (!first) return;
  const describe = ([page, size]: [number, PageSize]) =>
    `page ${page} (${Math.round(size.width)} × ${Math.round(size.height)} pt)`;
  const fitting: number[] = [];
  for (const entry of tooLarge) {
    const fits = fittingDpi(entry[1]);
    if (fits !== undefined) {
      fitting.push(fits);
      continue;
    }
    throw new ApiError(
      'invalid_source_file',
      `The PDF's ${describe(entry)} cannot be rendered: even at ${dpiRange.min} dpi, the lowest, it would be ${pixelsAt(entry[1], dpiRange.min)} pixels, over the ${limit} pixel limit. Leave it out with \`pages\`.`,
    );
  }
  throw new ApiError(
    'validation_failed',
    `dpi: ${describe(first)} would be ${pixelsAt(first[1], dpi)} pixels at ${dpi} dpi, over the ${limit} pixel limit; use a dpi of at most ${Math.min(...fitting)}.`,
  );
}

function encoder(format: RasterFormat, dpi: number, width: number, height: number, rgba: Uint8Array) {
  // pdfium paints on white, so the alpha channel carries nothing.
  const image = sharp(rgba, { raw: { width, height, channels: 4 } })
    .removeAlpha()
    .withDensity(dpi);
  if (format === 'png') return image.png({ compressionLevel: 6 });
  if (format === 'jpg') return image.jpeg({ quality: lossyQuality, mozjpeg: false });
  return image.webp({ quality: lossyQuality });
}

async function renderPage(document: PdfiumPages, page: number, options: RasterizeOptions): Promise<Buffer> {
  const bitmap = await document.render(page, options.dpi / 72);
  return encoder(options.format, options.dpi, bitmap.width, bitmap.height, bitmap.data).toBuffer();
}

/**
 * Checks the document with pdf-lib, as every operation does, picks the pages to render (with their
 * displayed sizes; with a `dpi`, refusing pages too large at it), and makes
 * what pdfium gets safe to render (`guardRendering`). When opening repaired the file or the guard
 * changed it, pdfium gets the repaired document, so that both engines read the same pages.
 */
export async function openForRendering(
  bytes: Uint8Array,
  options: { pages: readonly RangeTerm[] | undefined; dpi?: number },
): Promise<{ pages: number[]; renderable: Uint8Array; sizes: Map<number, PageSize> }> {
  const opened = await openPdf(bytes);
  const pageCount = pagesOf(opened);
  const selected = options.pages
    ? pagesInRanges(resolveRanges(options.pages, pageCount, 'pages'))
    : Array.from({ length: pageCount }, (_, index) => index + 1);
  const all = opened.doc.getPages();
  const sizes = new Map(selected.map((page) => [page, displayedSize(all[page - 1]!)]));
  if (options.dpi !== undefined) checkPixels(sizes, options.dpi);
  const hazards = guardRendering(
    opened.doc.context,
    all.map((page) => page.node),
  );
  const overdrawn = hazards.overdrawnPages.find((page) => selected.includes(page));
  if (overdrawn !== undefined) {
    throw new ApiError(
      'invalid_source_file',
      `The PDF's page ${overdrawn} cannot be rendered: its form XObjects or patterns, nested, would be drawn more than ${maxFormDraws} times. Leave it out with \`pages\`.`,
    );
  }
  const changes = [...opened.repairs, ...hazards.changes];
  if (changes.length === 0) return { pages: selected, renderable: bytes, sizes };
  log('info', 'PDF repaired before rendering', { changes: changes.slice(0, 20) });
  const renderable = await opened.doc.save({
    useObjectStreams: false,
    addDefaultPage: false,
    updateFieldAppearances: false,
  });
  return { pages: selected, renderable, sizes };
}

/**
 * Renders pages with pdfium (annotations included, on white) and encodes them with sharp. The
 * pdf-lib document is dropped before pdfium opens its own copy.
 */
export async function rasterizePdf(sourcePath: string, options: RasterizeOptions): Promise<RasterizeResult> {
  const bytes = await readFile(sourcePath);
  if (bytes.length > maxRasterSourceBytes) {
    throw new ApiError(
      'source_too_large',
      `PDFs over ${formatBytes(maxRasterSourceBytes)} cannot be rendered to images, whatever the tier.`,
    );
  }
  const { pages, renderable } = await openForRendering(bytes, options);

  const document = new PdfiumPages(renderable, { deadline: options.deadline });
  try {
    const extension = options.format;
    const [only] = pages;
    if (pages.length === 1 && only !== undefined) {
      const path = await options.workspace.file(`page.${extension}`);
      await writeFile(path, await renderPage(document, only, options));
      return { path, kind: 'image', pages };
    }
    const path = await options.workspace.file('pages.zip');
    await writeZip(path, async (add) => {
      for (const [index, page] of pages.entries()) {
        await add(`${options.baseName}-${page}.${extension}`, await renderPage(document, page, options));
        options.onProgress?.(Math.round(((index + 1) / pages.length) * 100));
      }
    });
    return { path, kind: 'zip', pages };
  } finally {
    document.destroy();
  }
}
