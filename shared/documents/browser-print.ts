import { readFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import type { Page, PDFOptions } from 'puppeteer-core';
import { maxPrintPages } from '#shared/documents/browser-limits.ts';
import { namedPageSizes, type PageOptions } from '#shared/documents/schemas.ts';
import { ApiError } from '#shared/errors.ts';

/**
 * Points as whole CSS pixels (96 per inch): Chromium rounds a page's size up to the next pixel, so
 * a fraction of one would add a point to the page.
 */
const pixels = (points: number): string => `${Math.round((points * 96) / 72)}px`;

/** The page's size in points, turned when `landscape`. */
export function pageSizePoints(options: Pick<PageOptions, 'pageSize' | 'landscape'>): {
  width: number;
  height: number;
} {
  const size = typeof options.pageSize === 'string' ? namedPageSizes[options.pageSize] : options.pageSize;
  return options.landscape
    ? { width: size.height, height: size.width }
    : { width: size.width, height: size.height };
}

/**
 * The browser's print settings for the contract's page options. The size is given explicitly (a
 * page's own CSS `@page` size does not override it) and already turned, so Chromium's own
 * `landscape` stays off. A margin that leaves no room for content is refused.
 */
export function pdfOptions(options: PageOptions): PDFOptions {
  const { width, height } = pageSizePoints(options);
  if (options.margin * 2 >= Math.min(width, height) - 36) {
    throw new ApiError(
      'validation_failed',
      `margin: ${options.margin} points on each side leaves less than half an inch of a ${Math.round(width)} × ${Math.round(height)} point page.`,
    );
  }
  const margin = pixels(options.margin);
  return {
    width: pixels(width),
    height: pixels(height),
    margin: { top: margin, right: margin, bottom: margin, left: margin },
    printBackground: options.printBackground,
    scale: options.scale,
    preferCSSPageSize: false,
    tagged: true,
    outline: false,
  };
}

/**
 * Prints the loaded page to a PDF file at `path`: at most maxPrintPages pages, else 400 naming the
 * limit. One page past it is printed, to tell a document of exactly the limit from a longer one.
 */
export async function printPdf(page: Page, options: PageOptions, path: string): Promise<void> {
  await page.pdf({ ...pdfOptions(options), pageRanges: `1-${maxPrintPages + 1}`, path, timeout: 0 });
  const printed = await PDFDocument.load(await readFile(path), { updateMetadata: false });
  if (printed.getPageCount() > maxPrintPages) {
    throw new ApiError(
      'invalid_source_file',
      `The document runs to more than ${maxPrintPages} pages; one request prints at most ${maxPrintPages}.`,
    );
  }
}
