import { bufferedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, type RouteSpec } from '#shared/routes/types.ts';
import {
  codecResult,
  decodeBody,
  encodeBody,
  hashBody,
  hashResult,
  slugifyBody,
  slugifyResult,
  textCaseBody,
  textCaseResult,
  textStatsBody,
  textStatsResult,
} from '#shared/text/schemas.ts';

const text = { method: 'POST', kind: 'json', tag: 'Text' } as const;

export const slugifyRoute = defineRoute({
  ...text,
  path: '/slugify',
  function: 'slugify',
  sizing: bufferedSizing(256, false),
  formats: { categories: ['text'], inputs: ['text'], outputs: ['json'] },
  summary: 'Turn text into a URL slug',
  description:
    'Unicode is folded to ASCII: German, French, Nordic, Cyrillic, Greek and more are transliterated. ' +
    'Umlauts fold to their base letter ("Wörld" → "world") unless `locale` asks for a language\'s own rules ' +
    '(`de`: ä → ae). `separator` is 1 to 3 of the URL-safe characters `-` `_` `.` `~`. `maxLength` cuts after a ' +
    'whole word, never inside or after a separator. A text with no letter or digit to keep (`"!!!"`) answers 400 ' +
    '`invalid_input`.',
  body: slugifyBody,
  response: slugifyResult,
  example: { text: 'Héllo Wörld!' },
  responseExample: { slug: 'hello-world' },
  errors: ['invalid_input'],
});

export const hashRoute = defineRoute({
  ...text,
  path: '/hash',
  function: 'hash',
  sizing: bufferedSizing(256, false),
  formats: { categories: ['text'], inputs: ['text'], outputs: ['json'] },
  summary: 'Hash text',
  description:
    "The digest of the text's UTF-8 bytes. md5 and sha1 are there for checksums, not for security.",
  body: hashBody,
  response: hashResult,
  example: { text: 'hello', algorithm: 'sha256' },
  responseExample: {
    algorithm: 'sha256',
    encoding: 'hex',
    hash: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
  },
  errors: [],
});

export const encodeRoute = defineRoute({
  ...text,
  path: '/encode',
  function: 'encode',
  sizing: bufferedSizing(256, false),
  formats: { categories: ['text'], inputs: ['text'], outputs: ['json'] },
  summary: 'Encode text (base64, base64url, base32, hex, url, html)',
  description:
    "base64, base64url, base32 and hex encode the text's UTF-8 bytes: base64 and base32 padded (RFC 4648 §4, §6), " +
    'base64url unpadded (RFC 4648 §5, as in JWTs), hex in lowercase. `url` percent-encodes like encodeURIComponent ' +
    "(RFC 3986 unreserved characters and `!'()*` stay). `html` writes & < > \" ' as character references.",
  body: encodeBody,
  response: codecResult,
  example: { text: 'Hello, Wörld!', encoding: 'base64' },
  responseExample: { encoding: 'base64', result: 'SGVsbG8sIFfDtnJsZCE=' },
  errors: [],
});

export const decodeRoute = defineRoute({
  ...text,
  path: '/decode',
  function: 'decode',
  sizing: bufferedSizing(256, false),
  formats: { categories: ['text'], inputs: ['text'], outputs: ['json'] },
  summary: 'Decode text written in base64, base64url, base32, hex, url or html',
  description:
    'Strict: a character outside the alphabet, white space, wrong padding or non-zero padding bits, an odd number of ' +
    'hex digits, a broken %XX escape or a bad character reference answers 400 `invalid_input`, and so do bytes that ' +
    'are not UTF-8 text. base64url and base32 are read padded or unpadded; base32 and hex in either letter case. ' +
    '`url` does not turn `+` into a space. `html` decodes as a browser does in text, but refuses unknown named ' +
    'references (`&foo;`) and numeric references without `;` or to invalid code points.',
  body: decodeBody,
  response: codecResult,
  example: { text: 'SGVsbG8sIFfDtnJsZCE=', encoding: 'base64' },
  responseExample: { encoding: 'base64', result: 'Hello, Wörld!' },
  errors: ['invalid_input'],
});

export const textCaseRoute = defineRoute({
  ...text,
  path: '/text-case',
  function: 'text-case',
  sizing: bufferedSizing(256, false),
  formats: { categories: ['text'], inputs: ['text'], outputs: ['json'] },
  summary: 'Change the case of text',
  description:
    'lower, upper, title (every word capitalised) and sentence (every sentence capitalised, the rest lower case) ' +
    'keep spacing and punctuation. camel, pascal, snake, kebab and constant build an identifier from the words.',
  body: textCaseBody,
  response: textCaseResult,
  example: { text: 'hello wonderful world', case: 'camel' },
  responseExample: { case: 'camel', result: 'helloWonderfulWorld' },
  errors: [],
});

export const textStatsRoute = defineRoute({
  ...text,
  path: '/text-stats',
  function: 'text-stats',
  sizing: bufferedSizing(256, false),
  formats: { categories: ['text'], inputs: ['text'], outputs: ['json'] },
  summary: 'Count characters, words, sentences, lines and paragraphs',
  description:
    'Characters are grapheme clusters (what a reader sees as one character); words and sentences follow Unicode ' +
    'segmentation (Intl.Segmenter). A final line break starts no new line. Paragraphs are separated by blank lines. ' +
    'Reading time assumes 200 words per minute, rounded up to whole seconds.',
  body: textStatsBody,
  response: textStatsResult,
  example: { text: 'Hello world. This is a test.\n\nSecond paragraph.' },
  responseExample: {
    characters: 47,
    charactersNoSpaces: 39,
    words: 8,
    sentences: 3,
    lines: 3,
    paragraphs: 2,
    readingTimeSeconds: 3,
  },
  errors: [],
});

export const textRoutes: RouteSpec[] = [
  slugifyRoute,
  hashRoute,
  encodeRoute,
  decodeRoute,
  textCaseRoute,
  textStatsRoute,
];
