import * as z from 'zod';
import {
  digestEncodings,
  hashAlgorithms,
  separatorPattern,
  slugLocales,
  textCases,
  textEncodings,
} from '#shared/text/limits.ts';

/**
 * A text field. JSON can carry lone UTF-16 surrogates ("\ud800"), which are no Unicode text and
 * would otherwise be replaced silently before hashing or encoding; they are refused instead.
 */
export const unicodeText = () =>
  z
    .string()
    .refine((value) => value.isWellFormed(), 'contains a lone surrogate, which is not valid Unicode text');

export type HashAlgorithm = (typeof hashAlgorithms)[number];

export type DigestEncoding = (typeof digestEncodings)[number];

export type TextEncoding = (typeof textEncodings)[number];

export type TextCase = (typeof textCases)[number];

export const slugifyBody = z.strictObject({
  text: unicodeText().min(1).describe('The text to turn into a URL slug.'),
  separator: z
    .string()
    .regex(separatorPattern, 'must be 1 to 3 of the characters - _ . ~')
    .default('-')
    .describe('What joins the words: 1 to 3 of the URL-safe characters `-` `_` `.` `~`.'),
  lowercase: z.boolean().default(true),
  maxLength: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      'Cut the slug to at most this many characters, after a whole word: it never ends with (part of) a separator. Only a first word longer than this is cut inside.',
    ),
  locale: z
    .enum(slugLocales)
    .optional()
    .describe(
      'Language-specific transliteration, e.g. `de` for ä → ae, ö → oe, ü → ue. Without it, letters fold to their base letter (ä → a).',
    ),
});
export const slugifyResult = z.object({ slug: z.string() });

export const hashBody = z.strictObject({
  text: unicodeText().describe('The text to hash, as UTF-8 bytes.'),
  algorithm: z.enum(hashAlgorithms).default('sha256'),
  encoding: z.enum(digestEncodings).default('hex').describe('How the digest is written.'),
});
export const hashResult = z.object({
  algorithm: z.enum(hashAlgorithms),
  encoding: z.enum(digestEncodings),
  hash: z.string(),
});

const encodingField = z
  .enum(textEncodings)
  .describe(
    'base64 (RFC 4648 §4, padded), base64url (RFC 4648 §5, unpadded), base32 (RFC 4648 §6, padded), hex (lowercase), url (RFC 3986 percent-encoding), html (character references).',
  );

export const encodeBody = z.strictObject({
  text: unicodeText().describe('The text to encode; binary encodings encode its UTF-8 bytes.'),
  encoding: encodingField,
});
export const decodeBody = z.strictObject({
  text: z.string().describe('The encoded text; it must be valid in that encoding and decode to UTF-8 text.'),
  encoding: encodingField,
});
export const codecResult = z.object({ encoding: z.enum(textEncodings), result: z.string() });

export const textCaseBody = z.strictObject({
  text: unicodeText(),
  case: z.enum(textCases),
});
export const textCaseResult = z.object({ case: z.enum(textCases), result: z.string() });

export const textStatsBody = z.strictObject({ text: unicodeText() });
export const textStatsResult = z.object({
  characters: z.number().int().describe('User-perceived characters (Unicode grapheme clusters).'),
  charactersNoSpaces: z.number().int().describe('Characters that are not white space.'),
  words: z.number().int(),
  sentences: z.number().int(),
  lines: z.number().int(),
  paragraphs: z.number().int(),
  readingTimeSeconds: z.number().int().describe('At 200 words per minute, rounded up.'),
});
