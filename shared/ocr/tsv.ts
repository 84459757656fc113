/**
 * Reading Tesseract's outputs: its TSV (one row per page, block, paragraph, line and word, with
 * boxes and confidences) and its plain text.
 */

/** One recognised word with its box in the page image's pixels (origin top left). */
export interface RecognisedWord {
  text: string;
  confidence: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Level of a TSV row that is a word (1 page, 2 block, 3 paragraph, 4 line). */
const wordLevel = 5;

/** The words of a TSV, in reading order; rows that are no words, or blank, are left out. */
export function wordsOf(tsv: string): RecognisedWord[] {
  const words: RecognisedWord[] = [];
  for (const row of tsv.split('\n')) {
    const cells = row.split('\t');
    if (cells.length < 12 || Number(cells[0]) !== wordLevel) continue;
    const text = cells.slice(11).join('\t').trim();
    const confidence = Number(cells[10]);
    if (text === '' || !Number.isFinite(confidence) || confidence < 0) continue;
    const [left, top, width, height] = cells.slice(6, 10).map(Number) as [number, number, number, number];
    words.push({ text, confidence, left, top, width, height });
  }
  return words;
}

/** Tesseract's mean word confidence, 0–100 to one decimal; 0 for a page without words. */
export function meanConfidence(words: readonly RecognisedWord[]): number {
  if (words.length === 0) return 0;
  const sum = words.reduce((total, word) => total + word.confidence, 0);
  return Math.round((sum / words.length) * 10) / 10;
}

/**
 * A page's text as Tesseract writes it, tidied: no form feed (pages are joined by the caller),
 * no trailing spaces, no empty lines at either end, at most one empty line in a row.
 */
export function pageText(text: string): string {
  return text
    .replaceAll('\f', '')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}
