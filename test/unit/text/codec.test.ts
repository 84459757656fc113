import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { decodeText } from '#shared/text/decode.ts';
import { encodeText } from '#shared/text/encode.ts';
import { textEncodings } from '#shared/text/limits.ts';
import type { TextEncoding } from '#shared/text/schemas.ts';

// RFC 4648 §10 test vectors.
const rfc4648 = [
  ['', '', '', ''],
  ['f', 'Zg==', 'MY======', '66'],
  ['fo', 'Zm8=', 'MZXQ====', '666F'],
  ['foo', 'Zm9v', 'MZXW6===', '666F6F'],
  ['foob', 'Zm9vYg==', 'MZXW6YQ=', '666F6F62'],
  ['fooba', 'Zm9vYmE=', 'MZXW6YTB', '666F6F6261'],
  ['foobar', 'Zm9vYmFy', 'MZXW6YTBOI======', '666F6F626172'],
] as const;

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ApiError ? error.code : `not an ApiError: ${String(error)}`;
  }
  return 'accepted';
};

describe('RFC 4648 vectors', () => {
  it.each(rfc4648)('%j encodes and decodes in base64, base64url, base32 and hex', (text, b64, b32, b16) => {
    expect(encodeText(text, 'base64')).toBe(b64);
    expect(encodeText(text, 'base64url')).toBe(b64.replace(/=+$/, ''));
    expect(encodeText(text, 'base32')).toBe(b32);
    expect(encodeText(text, 'hex')).toBe(b16.toLowerCase());
    expect(decodeText(b64, 'base64')).toBe(text);
    expect(decodeText(b64, 'base64url')).toBe(text);
    expect(decodeText(b64.replace(/=+$/, ''), 'base64url')).toBe(text);
    expect(decodeText(b32, 'base32')).toBe(text);
    expect(decodeText(b32.replace(/=+$/, ''), 'base32')).toBe(text);
    expect(decodeText(b32.toLowerCase(), 'base32')).toBe(text);
    expect(decodeText(b16, 'hex')).toBe(text);
    expect(decodeText(b16.toLowerCase(), 'hex')).toBe(text);
  });

  it('uses the URL-safe alphabet for base64url', () => {
    // 0xfb 0xff 0xbf is "+/+/" in base64 and "-_-_" in base64url; "ﯿ" (U+FBFF) is EF AF BF.
    expect(encodeText('\u{fbff}\u{fbff}\u{fbff}', 'base64')).toBe('76+/76+/76+/');
    expect(encodeText('\u{fbff}\u{fbff}\u{fbff}', 'base64url')).toBe('76-_76-_76-_');
    expect(decodeText('76-_76-_76-_', 'base64url')).toBe('\u{fbff}\u{fbff}\u{fbff}');
  });
});

describe('url and html', () => {
  it('percent-encodes UTF-8 and reads it back', () => {
    expect(encodeText('a b&c=d/é?', 'url')).toBe('a%20b%26c%3Dd%2F%C3%A9%3F');
    expect(decodeText('a%20b%26c%3Dd%2F%C3%A9%3F', 'url')).toBe('a b&c=d/é?');
    expect(decodeText('a+b', 'url')).toBe('a+b');
  });

  it('escapes the five HTML-special characters and decodes named and numeric references', () => {
    expect(encodeText(`<a href="x">Tom & Jerry's</a>`, 'html')).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;',
    );
    expect(decodeText('&lt;p&gt; R&amp;D &eacute; &#233; &#xE9; &#X1F600; AT&T a & b', 'html')).toBe(
      '<p> R&D é é é 😀 AT&T a & b',
    );
  });
});

describe('strict decoding', () => {
  it.each([
    ['base64', 'Zg='], // padding to no multiple of 4
    ['base64', 'Zg'], // padding missing
    ['base64', 'Zh=='], // non-zero padding bits
    ['base64', 'Zm9v!A=='],
    ['base64', 'Zm9v\nYmFy'],
    ['base64', 'Zm 9v'],
    ['base64', '=Zm9'],
    ['base64', 'Zm9v-_=='], // URL-safe letters in plain base64
    ['base64url', 'Zm9v+/'],
    ['base64url', 'Zh'],
    ['base64url', 'Zg='],
    ['base64url', 'Z'],
    ['base32', 'MY====='],
    ['base32', 'MZXW6YR='], // non-zero padding bits
    ['base32', 'MZXW1==='],
    ['base32', 'MZXW6Y'], // a length no base32 text has
    ['hex', 'abc'],
    ['hex', 'zz'],
    ['hex', '0x66'],
    ['url', '%'],
    ['url', '%zz'],
    ['url', '%E0%A4%A'],
    ['url', '%FF'], // not UTF-8
    ['html', '&foo;'],
    ['html', '&#;'],
    ['html', '&#x;'],
    ['html', '&#65'],
    ['html', '&#0;'],
    ['html', '&#xD800;'],
    ['html', '&#x110000;'],
    ['html', '&#99999999999999999999;'],
    ['base64', '/w=='], // the byte 0xFF: no UTF-8 text
    ['hex', 'c328'], // a broken two-byte sequence
  ] as const)('%s refuses %j with invalid_input', (encoding, text) => {
    expect(refusal(() => decodeText(text, encoding))).toBe('invalid_input');
  });

  it('does not echo the input in its message', () => {
    try {
      decodeText('secret-value!', 'base64');
      expect.unreachable();
    } catch (error) {
      expect((error as ApiError).message).not.toContain('secret');
      expect((error as ApiError).message).toContain('offset 6');
    }
  });
});

describe('properties', () => {
  const text = fc.string({ unit: 'binary', maxLength: 200 }).filter((s) => s.isWellFormed());

  it.each(textEncodings)('%s: decode(encode(text)) is the text', (encoding: TextEncoding) => {
    fc.assert(
      fc.property(text, (value) => {
        expect(decodeText(encodeText(value, encoding), encoding)).toBe(value);
      }),
      { numRuns: 200 },
    );
  });

  it.each(textEncodings)('%s: any input either decodes or is refused with invalid_input', (encoding) => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 40 }), fc.string({ maxLength: 40 })),
        (input) => {
          const outcome = refusal(() => decodeText(input, encoding));
          expect(['accepted', 'invalid_input']).toContain(outcome);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepted base64 is canonical: re-encoding gives the same text', () => {
    const alphabet = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='.split(''),
    );
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 16 }), (input) => {
        let decoded: string;
        try {
          decoded = decodeText(input, 'base64');
        } catch {
          return;
        }
        expect(encodeText(decoded, 'base64')).toBe(input);
      }),
      { numRuns: 500 },
    );
  });
});
