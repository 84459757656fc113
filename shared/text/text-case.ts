import { camelCase, constantCase, kebabCase, type Options, pascalCase, snakeCase } from 'change-case';
import type { TextCase } from '#shared/text/schemas.ts';

// Locale-independent lower/upper casing, so the answer does not depend on the host's locale.
const identifierOptions: Options = { locale: false };
const words = new Intl.Segmenter('en', { granularity: 'word' });
const letterPattern = /^\p{L}$/u;
const spacePattern = /^\s$/u;
// ASCII answered by comparisons: the Unicode classes are asked only about other characters.
const isLetter = (char: string) =>
  char < '\u0080' ? (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') : letterPattern.test(char);
const isSpace = (char: string) =>
  char < '\u0080' ? char === ' ' || (char >= '\t' && char <= '\r') : spacePattern.test(char);
const sentenceEnd = new Set(['.', '!', '?', '…']);
const closing = new Set(["'", '"', '’', '”', ')', ']']);

/**
 * lower, upper, title and sentence keep the text as it is (spacing, punctuation) and change only
 * letter case; camel, pascal, snake, kebab and constant build an identifier from the words.
 */
export function changeCase(text: string, textCase: TextCase): string {
  switch (textCase) {
    case 'lower':
      return text.toLowerCase();
    case 'upper':
      return text.toUpperCase();
    case 'title':
      return titleCase(text);
    case 'sentence':
      return sentenceCase(text.toLowerCase());
    case 'camel':
      return camelCase(text, identifierOptions);
    case 'pascal':
      return pascalCase(text, identifierOptions);
    case 'snake':
      return snakeCase(text, identifierOptions);
    case 'kebab':
      return kebabCase(text, identifierOptions);
    case 'constant':
      return constantCase(text, identifierOptions);
  }
}

/**
 * Upper-cases the first letter of each sentence. A sentence starts the text or a paragraph (two
 * line breaks with only white space between), or follows . ! ? … (with any closing quotes or
 * brackets) and white space; anything but a letter may come before its first letter. Unicode
 * sentence segmentation does not help here: it sees no break before a lower-case letter, which is
 * exactly what this case has to fix. One pass over the text, so the time is linear in its length
 * (a regular expression with a lazy run up to the next letter went quadratic on ". . . . ").
 */
function sentenceCase(lower: string): string {
  const parts: string[] = [];
  let copied = 0; // lower[0, copied) is in parts
  let at = 0;
  let startsSentence = true;
  let afterSentenceEnd = false; // an end mark, then only closing quotes or brackets
  let lineBreaks = 0; // in the current run of white space
  for (const char of lower) {
    if (isLetter(char)) {
      if (startsSentence) {
        parts.push(lower.slice(copied, at), char.toUpperCase());
        copied = at + char.length;
      }
      startsSentence = false;
      afterSentenceEnd = false;
      lineBreaks = 0;
    } else if (isSpace(char)) {
      if (afterSentenceEnd) startsSentence = true;
      afterSentenceEnd = false;
      if (char === '\n') lineBreaks += 1;
      if (lineBreaks >= 2) startsSentence = true;
    } else {
      afterSentenceEnd = sentenceEnd.has(char) || (afterSentenceEnd && closing.has(char));
      lineBreaks = 0;
    }
    at += char.length;
  }
  parts.push(lower.slice(copied));
  return parts.join('');
}

/** "hELLO wORLD, isn’t it" → "Hello World, Isn’t It": every word's first letter upper case. */
function titleCase(text: string): string {
  let result = '';
  for (const { segment, isWordLike } of words.segment(text)) {
    result += isWordLike ? capitalizeFirstLetter(segment) : segment;
  }
  return result;
}

function capitalizeFirstLetter(word: string): string {
  const lower = word.toLowerCase();
  const first = /\p{L}/u.exec(lower);
  if (!first) return lower;
  return lower.slice(0, first.index) + first[0].toUpperCase() + lower.slice(first.index + first[0].length);
}
