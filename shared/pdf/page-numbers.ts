import { writeFile } from 'node:fs/promises';
import { popGraphicsState, pushGraphicsState, setFillingGrayscaleColor } from 'pdf-lib';
import type { NumberPosition } from '#shared/pdf/draw-limits.ts';
import { DrawingFonts, widthOfRuns } from '#shared/pdf/fonts.ts';
import { MarkResources, textOperators } from '#shared/pdf/mark-resources.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import { eachPage, pagesOf as pagesIn, type RangeTerm, resolveRanges } from '#shared/pdf/ranges.ts';
import { frameOf, PageStamper, translation } from '#shared/pdf/stamp.ts';

export interface PageNumberOptions {
  /** `{n}` is the page's number, `{total}` the last page's. */
  format: string;
  position: NumberPosition;
  /** The number of the document's first page. */
  start: number;
  fontSize: number;
  /** Distance from the page's edges, in points. */
  margin: number;
  /** Parsed `pages`: the pages that carry a number; undefined: every page. */
  pages: readonly RangeTerm[] | undefined;
}

/** The text a page carries: the format with its placeholders filled. */
export const numberText = (format: string, number: number, total: number): string =>
  format.replaceAll('{n}', String(number)).replaceAll('{total}', String(total));

/** Where a line of `width` starts, and its baseline, on a page of the frame's size. */
export function numberOrigin(
  position: NumberPosition,
  page: { width: number; height: number },
  width: number,
  fontSize: number,
  margin: number,
): [number, number] {
  const [edge, side] = position.split('-') as ['top' | 'bottom', 'left' | 'center' | 'right'];
  const x =
    side === 'left' ? margin : side === 'right' ? page.width - margin - width : (page.width - width) / 2;
  // The text's descenders stay clear of the bottom margin, its ascenders of the top one.
  const y = edge === 'bottom' ? margin + 0.25 * fontSize : page.height - margin - 0.8 * fontSize;
  return [x, y];
}

/**
 * Writes a number on each selected page (default all) in black, as the page is shown (its
 * rotation and crop box applied), and writes the document. The document's first page is number
 * `start`; pages left out keep their place in the count.
 */
export async function numberPdfPages(
  sourcePath: string,
  outputPath: string,
  options: PageNumberOptions,
): Promise<void> {
  const opened = await openPdfFile(sourcePath);
  const { doc } = opened;
  const pageCount = pagesOf(opened);
  const ranges = options.pages ? resolveRanges(options.pages, pageCount, 'pages') : eachPage(pageCount);
  const fonts = new DrawingFonts(doc);
  const resources = new MarkResources(doc);
  const stamper = new PageStamper(doc);
  const total = options.start + pageCount - 1;
  const all = doc.getPages();
  for (const number of pagesIn(ranges)) {
    const page = all[number - 1]!;
    const frame = frameOf(page);
    const runs = await fonts.runs(numberText(options.format, options.start + number - 1, total), 'format');
    const width = widthOfRuns(runs, options.fontSize);
    const [x, y] = numberOrigin(options.position, frame, width, options.fontSize, options.margin);
    const form = stamper.form(
      [
        pushGraphicsState(),
        setFillingGrayscaleColor(0),
        ...textOperators(resources, runs, options.fontSize, translation(x, y)),
        popGraphicsState(),
      ],
      frame.width,
      frame.height,
      resources.ref,
    );
    stamper.stamp(page, form, frame.toPage, 'over');
  }
  await fonts.finish();
  await writeFile(outputPath, await savePdf(doc));
}
