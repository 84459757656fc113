import { camelCase, constantCase, kebabCase, type Options, pascalCase, snakeCase } from 'change-case';
import type { TextCase } from '#shared/text/schemas.ts';

// Locale-independent lower/upper casing, so the answer does not depend on the host's locale.
const identifierOptions: Options = { locale: false };
const words = new Intl.Segmenter('en', { granularity: 'word' });
// A sentence starts the text or a paragraph, or follows . ! ? … (with any closing quotes or
// brackets) and white space. Unicode sentence segmentation does not help here: it sees no break
// before a lower-case letter, which is exactly what this case has to fix.
const sentenceStart = /(^|\n\s*\n|[.!?…]['"’”)\]]*\s+)([^\p{L}]*?)(\p{L})/gu;

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
      return text.toLowerCase().replace(sentenceStart, (_match, before, between, letter: string) => {
        return before + between + letter.toUpperCase();
      });
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
