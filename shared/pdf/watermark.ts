import { writeFile } from 'node:fs/promises';
import {
  concatTransformationMatrix,
  drawObject,
  type PDFOperator,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
  setFillingRgbColor,
  setGraphicsState,
} from 'pdf-lib';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { maxTiles, type WatermarkPosition } from '#shared/pdf/draw-limits.ts';
import { DrawingFonts, type TextRun, widthOfRuns } from '#shared/pdf/fonts.ts';
import { MarkResources, textOperators } from '#shared/pdf/mark-resources.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import { eachPage, pagesOf as pagesIn, type RangeTerm, resolveRanges } from '#shared/pdf/ranges.ts';
import {
  frameOf,
  type Matrix,
  multiply,
  PageStamper,
  rotation,
  scaling,
  translation,
} from '#shared/pdf/stamp.ts';
import { embedMarkImage } from '#shared/pdf/watermark-image.ts';

export interface WatermarkOptions {
  mark: { text: string } | { image: { path: string; format: ImageInputFormat } };
  /** Points; undefined: fitted to the page. */
  fontSize?: number | undefined;
  /** 0–255 each. */
  color: { r: number; g: number; b: number };
  opacity: number;
  /** Degrees counter-clockwise. */
  rotation: number;
  /** Image width as a fraction of the page width. */
  scale: number;
  position: WatermarkPosition;
  layer: 'over' | 'under';
  /** Parsed `pages`; undefined: every page. */
  pages: readonly RangeTerm[] | undefined;
}

/** Share of the page a fitted text spans: most of it in the centre, less at an edge or tiled. */
const fittedShare: Record<'center' | 'edge' | 'tile', number> = { center: 0.8, edge: 0.4, tile: 0.3 };

/** Where the baseline sits below the middle of a line of text, as a share of the font size. */
const middleToBaseline = 0.35;

/** A mark before placement: drawn by `draw` into the unit where its centre is (0, 0). */
interface Mark {
  /** Width and height of the mark unturned, in points. */
  width: number;
  height: number;
  /** Operators drawing the mark centred at the origin of `at`. */
  draw: (at: Matrix) => PDFOperator[];
}

/** Width and height of a w × h box turned by `degrees`. */
export function turnedBox(width: number, height: number, degrees: number): { width: number; height: number } {
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.abs(Math.cos(radians));
  const sin = Math.abs(Math.sin(radians));
  return { width: width * cos + height * sin, height: width * sin + height * cos };
}

/** The centres of the mark's copies on a page of width × height. */
export function placements(
  position: WatermarkPosition,
  page: { width: number; height: number },
  box: { width: number; height: number },
): Array<[number, number]> {
  const margin = 0.04 * Math.min(page.width, page.height);
  const { width, height } = page;
  if (position === 'tile') {
    let stepX = Math.max(box.width * 1.5, 1);
    let stepY = Math.max(box.height * 1.5, 1);
    const count = (Math.ceil(width / stepX) + 1) * (Math.ceil(height / stepY) + 1);
    if (count > maxTiles) {
      const spread = Math.sqrt(count / maxTiles);
      stepX *= spread;
      stepY *= spread;
    }
    const centres: Array<[number, number]> = [];
    for (let row = 0; stepY * row < height + stepY; row += 1) {
      const shift = row % 2 === 1 ? stepX / 2 : 0;
      for (let x = stepX / 2 - shift; x < width + stepX / 2; x += stepX)
        centres.push([x, stepY / 2 + stepY * row]);
    }
    return centres.slice(0, maxTiles);
  }
  let x = width / 2;
  let y = height / 2;
  if (position.includes('west')) x = margin + box.width / 2;
  if (position.includes('east')) x = width - margin - box.width / 2;
  if (position.startsWith('south')) y = margin + box.height / 2;
  if (position.startsWith('north')) y = height - margin - box.height / 2;
  return [[x, y]];
}

/** The font size at which text `widthAtOne` points wide at size 1, turned, spans its share of the page. */
export function fittedFontSize(
  widthAtOne: number,
  degrees: number,
  position: WatermarkPosition,
  page: { width: number; height: number },
): number {
  const share = fittedShare[position === 'center' ? 'center' : position === 'tile' ? 'tile' : 'edge'];
  const box = turnedBox(widthAtOne, 1, degrees);
  return Math.max(1, Math.min((share * page.width) / box.width, (share * page.height) / box.height));
}

function textMark(resources: MarkResources, runs: readonly TextRun[], size: number): Mark {
  const width = widthOfRuns(runs, size);
  return {
    width,
    height: size,
    draw: (at) =>
      textOperators(resources, runs, size, multiply(translation(-width / 2, -middleToBaseline * size), at)),
  };
}

function imageMark(
  resources: MarkResources,
  image: { ref: PDFRef; width: number; height: number },
  width: number,
): Mark {
  const height = (width * image.height) / image.width;
  const name = resources.image(image.ref);
  return {
    width,
    height,
    draw: (at) => [
      pushGraphicsState(),
      concatTransformationMatrix(...multiply(multiply(translation(-0.5, -0.5), scaling(width, height)), at)),
      drawObject(name),
      popGraphicsState(),
    ],
  };
}

/**
 * Draws a text or an image on the selected pages (default all), over or under their content, and
 * writes the document. Pages of one size (as shown) share one drawing of the mark.
 */
export async function watermarkPdf(
  sourcePath: string,
  outputPath: string,
  options: WatermarkOptions,
): Promise<void> {
  const opened = await openPdfFile(sourcePath);
  const { doc } = opened;
  const pageCount = pagesOf(opened);
  const ranges = options.pages ? resolveRanges(options.pages, pageCount, 'pages') : eachPage(pageCount);
  const resources = new MarkResources(doc);
  const stamper = new PageStamper(doc);
  const text = 'text' in options.mark ? options.mark.text : undefined;
  const fonts = new DrawingFonts(doc);
  const runs = text === undefined ? undefined : await fonts.runs(text, 'text');
  const image = 'image' in options.mark ? await embedMarkImage(doc, options.mark.image) : undefined;
  const { r, g, b } = options.color;
  const forms = new Map<string, PDFRef>();
  const all = doc.getPages();
  for (const number of pagesIn(ranges)) {
    const page = all[number - 1]!;
    const frame = frameOf(page);
    const key = `${frame.width}x${frame.height}`;
    let form = forms.get(key);
    if (!form) {
      let mark: Mark;
      if (runs) {
        const size =
          options.fontSize ?? fittedFontSize(widthOfRuns(runs, 1), options.rotation, options.position, frame);
        mark = textMark(resources, runs, size);
      } else {
        mark = imageMark(resources, image!, options.scale * frame.width);
      }
      const box = turnedBox(mark.width, mark.height, options.rotation);
      const copies = placements(options.position, frame, box).flatMap(([x, y]) =>
        mark.draw(multiply(rotation(options.rotation), translation(x, y))),
      );
      form = stamper.form(
        [
          pushGraphicsState(),
          setGraphicsState(resources.opacity(options.opacity)),
          setFillingRgbColor(r / 255, g / 255, b / 255),
          ...copies,
          popGraphicsState(),
        ],
        frame.width,
        frame.height,
        resources.ref,
      );
      forms.set(key, form);
    }
    stamper.stamp(page, form, frame.toPage, options.layer);
  }
  await fonts.finish();
  await writeFile(outputPath, await savePdf(doc));
}
