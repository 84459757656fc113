import * as z from 'zod';

/**
 * A PDF password: PDF 2.0 (AES-256) reads the first 127 bytes of its UTF-8 form, so a longer one
 * would be cut silently; qpdf takes it as one line, so it holds no line break (nor NUL).
 */
export const pdfPassword = (what: string) =>
  z
    .string()
    .min(1)
    .max(127)
    .regex(/^[^\0\r\n]+$/, 'must not contain a line break or NUL')
    .refine((text) => Buffer.byteLength(text, 'utf8') <= 127, 'must be at most 127 bytes in UTF-8')
    .describe(`${what} At most 127 bytes in UTF-8, no line break.`);

/** The `password` every PDF route takes for an encrypted source. */
export const password = pdfPassword(
  'The password of an encrypted source, its user or its owner password: the source is decrypted with it and then ' +
    'read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. ' +
    'Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted.',
).optional();
