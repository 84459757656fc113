import slugifyText from '@sindresorhus/slugify';
import { ApiError } from '#shared/errors.ts';
import type { SlugLocale } from '#shared/text/limits.ts';

export interface SlugifyOptions {
  separator: string;
  lowercase: boolean;
  maxLength?: number | undefined;
  locale?: SlugLocale | undefined;
}

/**
 * Unicode folded to ASCII: "Héllo Wörld!" → "hello-world". German, French, Nordic, Cyrillic,
 * Greek and more are transliterated; `locale` switches on a language's own rules.
 */
export function slugify(text: string, options: SlugifyOptions): string {
  const slug = slugifyText(text, {
    separator: options.separator,
    lowercase: options.lowercase,
    decamelize: false,
    ...(options.locale ? { locale: options.locale } : { customReplacements: plainUmlauts }),
  });
  if (slug === '') {
    // An empty slug would make an empty path segment: the caller has to choose another text.
    throw new ApiError('invalid_input', 'text: has no letter or digit to make a slug of.');
  }
  if (options.maxLength === undefined || slug.length <= options.maxLength) return slug;
  return cutAtWord(slug.split(options.separator), options.separator, options.maxLength);
}

/**
 * The longest run of whole words that fits, so the cut never splits a separator or leaves one at
 * the end; only a first word longer than the limit on its own is cut inside.
 */
function cutAtWord(words: readonly string[], separator: string, maxLength: number): string {
  let slug = words[0]!.slice(0, maxLength);
  for (const word of words.slice(1)) {
    const longer = `${slug}${separator}${word}`;
    if (longer.length > maxLength) break;
    slug = longer;
  }
  return slug;
}

// Without a locale the contract folds umlauts to their base letter ("Wörld" → "world"), not the
// German "oe" that the transliteration table would otherwise pick.
const plainUmlauts: [string, string][] = [
  ['ä', 'a'],
  ['ö', 'o'],
  ['ü', 'u'],
  ['Ä', 'A'],
  ['Ö', 'O'],
  ['Ü', 'U'],
];
