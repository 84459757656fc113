import slugifyText from '@sindresorhus/slugify';

export interface SlugifyOptions {
  separator: string;
  lowercase: boolean;
  maxLength?: number | undefined;
}

/** Unicode folded to ASCII: "Héllo Wörld!" → "hello-world". */
export function slugify(text: string, options: SlugifyOptions): string {
  const slug = slugifyText(text, {
    separator: options.separator,
    lowercase: options.lowercase,
    decamelize: false,
    customReplacements: plainUmlauts,
  });
  if (options.maxLength === undefined || slug.length <= options.maxLength) return slug;
  const cut = slug.slice(0, options.maxLength);
  // Never end on a dangling separator after truncation.
  return options.separator ? cut.replace(new RegExp(`(${escapeRegExp(options.separator)})+$`), '') : cut;
}

// The contract folds umlauts to their base letter ("Wörld" → "world"), not the German "oe".
const plainUmlauts: [string, string][] = [
  ['ä', 'a'],
  ['ö', 'o'],
  ['ü', 'u'],
  ['Ä', 'A'],
  ['Ö', 'O'],
  ['Ü', 'U'],
];

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
