import { base32, base32nopad, base64, base64url, base64urlnopad, hex } from '@scure/base';
import { decodeHTML, decodeHTMLStrict } from 'entities';
import { ApiError } from '#shared/errors.ts';
import type { TextEncoding } from '#shared/text/schemas.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads text written in one of the contract's encodings. Decoding is strict: a character outside
 * the alphabet, wrong padding, non-zero padding bits, an odd number of hex digits, a broken
 * percent-escape or a bad character reference is refused, and so are bytes that are no UTF-8 text.
 */
export function decodeText(text: string, encoding: TextEncoding): string {
  switch (encoding) {
    case 'base64':
      return utf8Text(decodeRadix(text, 'base64', /[^A-Za-z0-9+/=]/, () => base64.decode(text)));
    case 'base64url':
      return utf8Text(
        decodeRadix(text, 'base64url', /[^A-Za-z0-9\-_=]/, () =>
          text.includes('=') ? base64url.decode(text) : base64urlnopad.decode(text),
        ),
      );
    case 'base32': {
      // The alphabet's case carries no information, so lowercase input is read as uppercase.
      const upper = text.toUpperCase();
      return utf8Text(
        decodeRadix(upper, 'base32', /[^A-Z2-7=]/, () =>
          upper.includes('=') || upper.length % 8 === 0 ? base32.decode(upper) : base32nopad.decode(upper),
        ),
      );
    }
    case 'hex':
      return utf8Text(decodeRadix(text, 'hex', /[^0-9A-Fa-f]/, () => hex.decode(text)));
    case 'url':
      return decodePercent(text);
    case 'html':
      return decodeHtmlReferences(text);
  }
}

const paddingRules: Record<string, string> = {
  base64: 'it must be padded with "=" to a multiple of 4 characters, with zero padding bits',
  base64url: 'unpadded, or padded with "=" to a multiple of 4 characters, with zero padding bits',
  base32: 'unpadded, or padded with "=" to a multiple of 8 characters, with zero padding bits',
  hex: 'it needs an even number of hex digits',
};

function decodeRadix(text: string, name: string, outside: RegExp, decode: () => Uint8Array): Uint8Array {
  const bad = outside.exec(text);
  if (bad) {
    throw new ApiError(
      'invalid_input',
      `text is not valid ${name}: character at offset ${bad.index} is not in its alphabet.`,
    );
  }
  try {
    return decode();
  } catch (error) {
    throw new ApiError('invalid_input', `text is not valid ${name}: ${paddingRules[name]}.`, {
      cause: error,
    });
  }
}

function utf8Text(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch (error) {
    throw new ApiError('invalid_input', 'text decodes to bytes that are not UTF-8 text.', { cause: error });
  }
}

function decodePercent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    throw new ApiError(
      'invalid_input',
      'text is not valid percent-encoding: every "%" must start a %XX escape and the escapes must form UTF-8.',
      { cause: error },
    );
  }
}

const numericReference = /&#([xX][0-9A-Fa-f]*|[0-9]*)(;?)/g;
const namedReference = /&([A-Za-z][A-Za-z0-9]*);/g;

/**
 * HTML character references as a browser decodes them in text, except that what the HTML standard
 * calls a character-reference error is refused: a numeric reference without digits or ';', or to
 * NUL, a surrogate or beyond U+10FFFF, and an unknown named reference such as `&foo;`. A bare "&"
 * that starts no reference ("R&D", "a & b") stays as it is.
 */
function decodeHtmlReferences(text: string): string {
  for (const match of text.matchAll(numericReference)) {
    const [, digits = '', semicolon] = match;
    const hexadecimal = digits.startsWith('x') || digits.startsWith('X');
    const value = hexadecimal ? digits.slice(1) : digits;
    const codePoint = value === '' ? Number.NaN : Number.parseInt(value, hexadecimal ? 16 : 10);
    const valid = semicolon === ';' && isScalarValue(codePoint);
    if (!valid) throw badReference(match.index, 'numeric character reference');
  }
  for (const match of text.matchAll(namedReference)) {
    if (decodeHTMLStrict(match[0]) === match[0]) throw badReference(match.index, 'named character reference');
  }
  return decodeHTML(text);
}

const isScalarValue = (codePoint: number) =>
  Number.isInteger(codePoint) &&
  codePoint > 0 &&
  codePoint <= 0x10ffff &&
  !(codePoint >= 0xd800 && codePoint <= 0xdfff);

const badReference = (offset: number, kind: string) =>
  new ApiError('invalid_input', `text is not valid html: bad ${kind} at offset ${offset}.`);
