import slugifyText from '@sindresorhus/slugify';

/** Languages with their own transliteration rules (ä → ae in German, å → aa in Danish, …). */
export const slugLocales = ['de', 'da', 'nb', 'sv', 'hu', 'tr', 'sr'] as const;
export type SlugLocale = (typeof slugLocales)[number];

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
  if (options.maxLength === undefined || slug.length <= options.maxLength) return slug;
  const cut = slug.slice(0, options.maxLength);
  // Never end on a dangling separator after truncation.
  return options.separator ? cut.replace(new RegExp(`(${escapeRegExp(options.separator)})+$`), '') : cut;
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

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
