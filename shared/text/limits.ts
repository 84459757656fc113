/** The options of the text routes, which their schemas and the route table read. */

export const hashAlgorithms = [
  'md5',
  'sha1',
  'sha256',
  'sha384',
  'sha512',
  'sha3-256',
  'sha3-512',
  'blake2b512',
] as const;
export const digestEncodings = ['hex', 'base64'] as const;
export const textEncodings = ['base64', 'base64url', 'base32', 'hex', 'url', 'html'] as const;
export const textCases = [
  'lower',
  'upper',
  'title',
  'sentence',
  'camel',
  'pascal',
  'snake',
  'kebab',
  'constant',
] as const;

/** Languages with their own transliteration rules (ä → ae in German, å → aa in Danish, …). */
export const slugLocales = ['de', 'da', 'nb', 'sv', 'hu', 'tr', 'sr'] as const;
export type SlugLocale = (typeof slugLocales)[number];

/**
 * What may join the words: characters RFC 3986 leaves unreserved besides letters and digits, so a
 * slug never needs escaping in a URL and a separator can never be mistaken for part of a word.
 */
export const separatorPattern = /^[-_.~]{1,3}$/;
