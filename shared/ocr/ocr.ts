import { readFile, rm, writeFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { ApiError } from '#shared/errors.ts';
import { ocrConfig } from '#shared/ocr/config.ts';
import {
  estimatedSecondsPerPage,
  type OcrOutputFormat,
  ocrAnswerReserveSeconds,
  ocrPageLimitSeconds,
  ocrPageLimits,
  pagesThatFit,
} from '#shared/ocr/limits.ts';
import { pageImages } from '#shared/ocr/page-images.ts';
import type { OcrResult } from '#shared/ocr/schemas.ts';
import { assertLanguagesInstalled, type PageRecognition, recognisePage } from '#shared/ocr/tesseract.ts';
import { newPdf, savePdf } from '#shared/pdf/output.ts';
import type { RangeTerm } from '#shared/pdf/ranges.ts';
import type { SourceFormat } from '#shared/source/formats.ts';
import { type TierName, tierNames } from '#shared/tiers.ts';
import type { Workspace } from '#shared/workspace.ts';

export interface OcrOptions {
  languages: readonly string[];
  /** Parsed `pages`; undefined: every page. */
  pages: readonly RangeTerm[] | undefined;
  outputFormat: OcrOutputFormat;
  tier: TierName;
  workspace: Workspace;
  /** When the request must have answered (epoch ms). */
  deadline?: number | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: (percent: number) => void;
}

/** Languages the deployment does not offer: 400 naming them and the ones it does, before any download. */
export function checkLanguagesOffered(languages: readonly string[], offered = ocrConfig.languages): void {
  const refused = languages
    .map((language, index) => ({ language, index }))
    .filter(({ language }) => !offered.includes(language));
  if (refused.length === 0) return;
  const named = refused.map(({ language, index }) => `languages.${index}: "${language}" is not offered`);
  throw new ApiError('validation_failed', `${named.join('; ')}. Offered: ${offered.join(', ')}.`);
}

/** The tier's page limit: past it, 400 naming the tier that reads that many. */
export function checkPageLimit(count: number, tier: TierName): void {
  const limit = ocrPageLimits[tier];
  if (count <= limit) return;
  const lift = tierNames.find((name) => ocrPageLimits[name] >= count);
  const hint = lift
    ? ` The ${lift} tier reads up to ${ocrPageLimits[lift]}.`
    : ' No tier reads that many in one request.';
  throw new ApiError(
    'validation_failed',
    `pages: ${count} pages are more than the ${limit} a request of the ${tier} tier reads.${hint} Choose pages with \`pages\`, e.g. "1-${limit}".`,
  );
}

/**
 * Refuses, before any page is read, a request whose pages would not be read in the time it has:
 * at the measured cost per page, naming how many pages fit. So a long document is never cut off
 * by the function's timeout after minutes of work.
 */
export function checkTime(count: number, deadline: number | undefined, now = Date.now()): void {
  if (deadline === undefined) return;
  const secondsLeft = Math.floor((deadline - now) / 1000);
  const fit = pagesThatFit(secondsLeft);
  if (count <= fit) return;
  throw new ApiError(
    'validation_failed',
    `pages: reading ${count} pages takes about ${count * estimatedSecondsPerPage} s (${estimatedSecondsPerPage} s a page), more than the ${secondsLeft} s this request has; ${fit === 0 ? 'no page fits' : `${fit} pages fit`}. Send fewer pages at a time with \`pages\`.`,
  );
}

/** The time one page may take: its own limit, or what the request has left when that is less. */
function pageLimit(deadline: number | undefined): { limitMs: number; describeLimit: string } {
  const own = {
    limitMs: ocrPageLimitSeconds * 1000,
    describeLimit: `${ocrPageLimitSeconds} s, the limit for one page`,
  };
  if (deadline === undefined) return own;
  const left = Math.max(1, deadline - ocrAnswerReserveSeconds * 1000 - Date.now());
  if (left >= own.limitMs) return own;
  return { limitMs: left, describeLimit: `the ${Math.ceil(left / 1000)} s left of the request's time limit` };
}

/** Pages are joined by a form feed, as pdftotext and Tesseract join them. */
const pageSeparator = '\f';

/** One searchable PDF of the pages' own PDFs (Tesseract's), through the service's PDF writer. */
async function joinPdfs(paths: readonly string[], output: string): Promise<void> {
  const out = await newPdf();
  for (const path of paths) {
    const page = await PDFDocument.load(await readFile(path), { updateMetadata: false });
    for (const copy of await out.copyPages(page, page.getPageIndices())) out.addPage(copy);
  }
  await writeFile(output, await savePdf(out));
}

export interface OcrOutput {
  path: string;
  pages: number;
}

/**
 * Reads the text of an image or of a PDF's pages with Tesseract, page by page, and writes the
 * answer: JSON (`{text, pages}`), plain text, or a searchable PDF (each page's image with
 * Tesseract's invisible text layer, word by word). Languages, the tier's page limit and the time
 * the pages need are checked before the first page is read.
 */
export async function ocrSource(
  source: { path: string; format: SourceFormat | undefined },
  options: OcrOptions,
): Promise<OcrOutput> {
  await assertLanguagesInstalled(options.languages);
  const { workspace, deadline } = options;
  const images = await pageImages(source, options.pages, workspace, deadline);
  try {
    checkPageLimit(images.pages.length, options.tier);
    checkTime(images.pages.length, deadline);
    const read: Array<{ number: number } & PageRecognition> = [];
    for (const [index, page] of images.pages.entries()) {
      const image = await images.image(page);
      const recognition = await recognisePage(image.path, await workspace.file(`ocr-${page}`), {
        languages: options.languages,
        dpi: image.dpi,
        pdf: options.outputFormat === 'pdf',
        page,
        signal: options.signal,
        ...pageLimit(deadline),
      });
      await rm(image.path, { force: true });
      read.push({ number: page, ...recognition });
      options.onProgress?.(Math.round(((index + 1) / images.pages.length) * 100));
    }
    const output = await workspace.file(`result.${options.outputFormat}`);
    const text = read.map((page) => page.text).join(pageSeparator);
    if (options.outputFormat === 'pdf') {
      await joinPdfs(
        read.map((page) => page.pdfPath!),
        output,
      );
    } else if (options.outputFormat === 'txt') {
      await writeFile(output, text === '' ? '' : `${text}\n`);
    } else {
      const result: OcrResult = {
        text,
        pages: read.map(({ number, text: pageText, confidence }) => ({ number, text: pageText, confidence })),
      };
      await writeFile(output, JSON.stringify(result));
    }
    return { path: output, pages: read.length };
  } finally {
    images.close();
  }
}
