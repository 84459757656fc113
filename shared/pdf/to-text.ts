import { readFile } from 'node:fs/promises';
import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { maxTextCharacters } from '#shared/pdf/limits.ts';
import { openPdf, pagesOf } from '#shared/pdf/open.ts';
import { discardPdfiumAfter, loadPdfiumApi, type PdfiumApi } from '#shared/pdf/pdfium.ts';
import { pagesOf as pagesIn, type RangeTerm, resolveRanges } from '#shared/pdf/ranges.ts';

export interface TextOptions {
  /** Parsed `pages`; undefined: every page. */
  pages: readonly RangeTerm[] | undefined;
  /** False: reading order; true: lines and columns placed by where their characters stand. */
  layout: boolean;
}

export interface PdfText {
  pages: Array<{ number: number; text: string }>;
  characters: number;
}

/** One character the page draws, with its box in page space (y grows upwards). */
export interface PlacedChar {
  text: string;
  left: number;
  right: number;
  bottom: number;
  top: number;
}

const unreadable = (page: number) =>
  new ApiError('invalid_source_file', `The PDF's page ${page} could not be read: its content is damaged.`);

/** Control characters other than tab and line feed are dropped, and trailing spaces. */
function cleanText(text: string): string {
  return text
    .replace(/[^\P{Cc}\t\n]/gu, '')
    .replace(/[ \t]+$/gm, '')
    .replace(/^\n+|\n+$/g, '');
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Characters of one line that no column gap parts, left to right, with where they start and end. */
interface Run {
  chars: PlacedChar[];
  left: number;
  right: number;
}

interface Lines {
  /** Top to bottom, each line's characters left to right. */
  lines: PlacedChar[][];
  /** The page's median character width: one column of laid-out text. */
  cell: number;
  pageLeft: number;
}

/**
 * Characters whose vertical centres lie within half a line of each other form one line, top to
 * bottom; spaces and characters without width are left out (gaps make the spaces again).
 */
function linesOf(chars: readonly PlacedChar[]): Lines {
  const drawn = chars.filter((char) => char.text.trim() !== '' && char.right > char.left);
  const cell = Math.max(median(drawn.map((char) => char.right - char.left)), 0.1);
  const pageLeft = Math.min(...drawn.map((char) => char.left));
  const centre = (char: PlacedChar) => (char.top + char.bottom) / 2;
  const lines: PlacedChar[][] = [];
  let line: PlacedChar[] = [];
  let lineCentre = 0;
  let lineHalf = 0;
  for (const char of [...drawn].sort((a, b) => centre(b) - centre(a))) {
    if (line.length > 0 && lineCentre - centre(char) <= lineHalf) {
      line.push(char);
      continue;
    }
    line = [char];
    lines.push(line);
    lineCentre = centre(char);
    lineHalf = Math.max((char.top - char.bottom) / 2, 0.1);
  }
  for (const row of lines) row.sort((a, b) => a.left - b.left);
  return { lines, cell, pageLeft };
}

/** A gap wider than two median characters parts columns; one wider than a fifth of the line height, words. */
const columnGap = (gap: number, cell: number) => gap > 2 * cell;
const wordGap = (gap: number, char: PlacedChar) => gap > (char.top - char.bottom) / 5;

/**
 * Places characters on a grid of text, as `pdftotext -layout` does in a simple form: lines as
 * `linesOf` makes them. The first character of a line, and one after a column gap, goes to the
 * column its left edge gives at the page's median character width per column, two spaces at least
 * after the text before it, so that columns side by side stay apart and aligned on every line; the
 * others follow the character before them, one space after a word gap.
 */
export function layOut(chars: readonly PlacedChar[]): string {
  const { lines, cell, pageLeft } = linesOf(chars);
  return lines
    .map((row) => {
      let text = '';
      let previousRight: number | undefined;
      for (const char of row) {
        const gap = previousRight === undefined ? 0 : char.left - previousRight;
        if (previousRight === undefined || columnGap(gap, cell)) {
          const least = previousRight === undefined ? 0 : text.length + 2;
          text = text.padEnd(Math.max(Math.round((char.left - pageLeft) / cell), least));
        } else if (wordGap(gap, char)) {
          text += ' ';
        }
        text += char.text;
        previousRight = char.right;
      }
      return text;
    })
    .join('\n');
}

/** A line cut at its column gaps. */
function runsOf(row: PlacedChar[], cell: number): Run[] {
  const runs: Run[] = [];
  for (const char of row) {
    const run = runs.at(-1);
    if (run && !columnGap(char.left - run.right, cell)) {
      run.chars.push(char);
      run.right = Math.max(run.right, char.right);
    } else {
      runs.push({ chars: [char], left: char.left, right: char.right });
    }
  }
  return runs;
}

function runText(run: Run): string {
  let text = '';
  let previousRight: number | undefined;
  for (const char of run.chars) {
    if (previousRight !== undefined && wordGap(char.left - previousRight, char)) text += ' ';
    text += char.text;
    previousRight = char.right;
  }
  return text;
}

/**
 * The text in reading order: lines as `linesOf` makes them, cut into runs at column gaps. A strip of
 * the page, top to bottom, that no run crosses and that is wider than two characters parts columns:
 * each column is read whole, top to bottom, before the one to its right. A line across the gutter (a
 * heading over both columns) leaves the page one column, read line by line.
 */
export function readingOrder(chars: readonly PlacedChar[]): string {
  const { lines, cell } = linesOf(chars);
  const runs = lines.map((row) => runsOf(row, cell));
  const gutters: number[] = [];
  let reach: number | undefined;
  for (const run of runs.flat().sort((a, b) => a.left - b.left)) {
    if (reach !== undefined && columnGap(run.left - reach, cell)) gutters.push(run.left);
    reach = Math.max(reach ?? run.right, run.right);
  }
  const columnOf = (run: Run) => gutters.filter((gutter) => run.left >= gutter).length;
  const columns: string[][] = Array.from({ length: gutters.length + 1 }, () => []);
  for (const row of runs) {
    const byColumn = new Map<number, string[]>();
    for (const run of row) {
      const column = columnOf(run);
      byColumn.set(column, [...(byColumn.get(column) ?? []), runText(run)]);
    }
    for (const [column, texts] of byColumn) columns[column]?.push(texts.join(' '));
  }
  return columns
    .filter((column) => column.length > 0)
    .map((column) => column.join('\n'))
    .join('\n\n');
}

/** The characters the page draws (not those pdfium adds between words), with their loose boxes. */
function placedChars(api: PdfiumApi, textPage: number, count: number): PlacedChar[] {
  const rect = api.wasmExports.malloc(16);
  try {
    const chars: PlacedChar[] = [];
    for (let index = 0; index < count; index += 1) {
      if (api._FPDFText_IsGenerated(textPage, index) === 1) continue;
      const code = api._FPDFText_GetUnicode(textPage, index);
      if (code === 0 || code > 0x10ffff || !api._FPDFText_GetLooseCharBox(textPage, index, rect)) continue;
      const view = new DataView(api.HEAPU8.buffer, rect, 16);
      const [left, top, right, bottom] = [0, 4, 8, 12].map((offset) => view.getFloat32(offset, true));
      chars.push({
        text: String.fromCodePoint(code),
        left: left!,
        top: top!,
        right: right!,
        bottom: bottom!,
      });
    }
    return chars;
  } finally {
    api.wasmExports.free(rect);
  }
}

function pageText(api: PdfiumApi, document: number, number: number, layout: boolean): string {
  const page = api._FPDF_LoadPage(document, number - 1);
  if (!page) throw unreadable(number);
  try {
    const textPage = api._FPDFText_LoadPage(page);
    if (!textPage) throw unreadable(number);
    try {
      const count = Math.max(api._FPDFText_CountChars(textPage), 0);
      const chars = placedChars(api, textPage, count);
      return cleanText(layout ? layOut(chars) : readingOrder(chars));
    } finally {
      api._FPDFText_ClosePage(textPage);
    }
  } finally {
    api._FPDF_ClosePage(page);
  }
}

const tooMuch = (pages: number[], upTo: number) => {
  const fitting = pages.slice(0, upTo);
  const hint =
    fitting.length > 0
      ? ` The first ${fitting.length} selected pages fit (up to page ${fitting.at(-1)}).`
      : ' The first selected page alone holds more.';
  return new ApiError(
    'validation_failed',
    `pages: the selected pages hold more than ${maxTextCharacters} characters, the most one answer carries; ask for fewer pages with \`pages\`.${hint}`,
  );
};

/**
 * The text of the selected pages (default all, each once, in page order), read by pdfium's text
 * API. The document is checked by pdf-lib first, as every operation does; when opening repaired it,
 * pdfium reads the repaired document, so that both engines read the same pages.
 */
export async function extractPdfText(sourcePath: string, options: TextOptions): Promise<PdfText> {
  const bytes = await readFile(sourcePath);
  const opened = await openPdf(bytes);
  const pageCount = pagesOf(opened);
  const selected = options.pages
    ? pagesIn(resolveRanges(options.pages, pageCount, 'pages'))
    : Array.from({ length: pageCount }, (_, index) => index + 1);
  let readable: Uint8Array = bytes;
  if (opened.repairs.length > 0) {
    log('info', 'PDF repaired before reading its text', { changes: opened.repairs.slice(0, 20) });
    readable = await opened.doc.save({ useObjectStreams: false, addDefaultPage: false });
  }
  const api = await loadPdfiumApi();
  const data = api.wasmExports.malloc(readable.length);
  let document = 0;
  let trapped = false;
  try {
    api.HEAPU8.set(readable, data);
    document = api._FPDF_LoadMemDocument(data, readable.length, 0);
    if (!document) throw unreadable(selected[0] ?? 1);
    const pages: PdfText['pages'] = [];
    let characters = 0;
    for (const [index, number] of selected.entries()) {
      const text = pageText(api, document, number, options.layout);
      characters += [...text].length;
      if (characters > maxTextCharacters) throw tooMuch(selected, index);
      pages.push({ number, text });
    }
    return { pages, characters };
  } catch (error) {
    discardPdfiumAfter(error);
    if (!(error instanceof WebAssembly.RuntimeError)) throw error;
    trapped = true;
    throw new ApiError('invalid_source_file', 'The PDF could not be read: the text reader failed on it.');
  } finally {
    // A trapped instance is discarded whole; its memory is not touched again.
    if (!trapped) {
      if (document) api._FPDF_CloseDocument(document);
      api.wasmExports.free(data);
    }
  }
}
