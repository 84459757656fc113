/** Silent reading speed used for `readingTimeSeconds`. */
export const WORDS_PER_MINUTE = 200;

export interface TextStats {
  characters: number;
  charactersNoSpaces: number;
  words: number;
  sentences: number;
  lines: number;
  paragraphs: number;
  readingTimeSeconds: number;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const wordSegments = new Intl.Segmenter('en', { granularity: 'word' });
const sentenceSegments = new Intl.Segmenter('en', { granularity: 'sentence' });
const lineBreak = /\r\n|\r|\n|\u2028|\u2029/;
const blank = /^\s*$/u;

/**
 * Counts by Unicode rules: characters are grapheme clusters (an emoji with modifiers or a letter
 * with combining marks is one), words and sentences follow Intl.Segmenter (UAX #29, with
 * dictionaries for scripts written without spaces). A line break that ends the text starts no
 * new line; paragraphs are runs of non-blank lines separated by blank lines.
 */
export function textStats(text: string): TextStats {
  let characters = 0;
  let charactersNoSpaces = 0;
  for (const { segment } of graphemes.segment(text)) {
    characters += 1;
    if (!blank.test(segment)) charactersNoSpaces += 1;
  }
  let words = 0;
  for (const segment of wordSegments.segment(text)) if (segment.isWordLike) words += 1;
  let sentences = 0;
  for (const { segment } of sentenceSegments.segment(text)) if (!blank.test(segment)) sentences += 1;

  const lines = text === '' ? [] : text.split(lineBreak);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  let paragraphs = 0;
  let inParagraph = false;
  for (const line of lines) {
    const isBlank = blank.test(line);
    if (!isBlank && !inParagraph) paragraphs += 1;
    inParagraph = !isBlank;
  }

  return {
    characters,
    charactersNoSpaces,
    words,
    sentences,
    lines: lines.length,
    paragraphs,
    readingTimeSeconds: Math.ceil((words * 60) / WORDS_PER_MINUTE),
  };
}
