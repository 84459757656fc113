import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmac } from '#shared/crypto/hmac.ts';

const bytes = (value: number, length: number) => new Uint8Array(length).fill(value);
const text = (value: string) => new TextEncoder().encode(value);

// RFC 4231 §4 (HMAC-SHA-2) and RFC 2202 §3 (HMAC-SHA-1) test cases.
const vectors = [
  [
    'RFC 4231 case 1',
    bytes(0x0b, 20),
    text('Hi There'),
    {
      sha256: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
      sha384:
        'afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6',
      sha512:
        '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
      sha1: 'b617318655057264e28bc0b6fb378c8ef146be00',
    },
  ],
  [
    'RFC 4231 case 2',
    text('Jefe'),
    text('what do ya want for nothing?'),
    {
      sha256: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      sha384:
        'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
      sha512:
        '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
      sha1: 'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79',
    },
  ],
  [
    'RFC 4231 case 3',
    bytes(0xaa, 20),
    bytes(0xdd, 50),
    {
      sha256: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
      sha512:
        'fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb',
    },
  ],
  [
    'RFC 4231 case 6',
    bytes(0xaa, 131),
    text('Test Using Larger Than Block-Size Key - Hash Key First'),
    {
      sha256: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      sha512:
        '80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598',
    },
  ],
  [
    'RFC 4231 case 7',
    bytes(0xaa, 131),
    text(
      'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
    ),
    {
      sha256: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    },
  ],
] as const;

describe('hmac', () => {
  it.each(vectors)('%s', (_name, key, message, expected) => {
    for (const [algorithm, digest] of Object.entries(expected)) {
      expect(hmac(message, key, algorithm as 'sha256', 'hex'), algorithm).toBe(digest);
    }
  });

  it('keys and messages given as text are their UTF-8 bytes; base64 is the same MAC', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary', minLength: 1 }),
        (message, key) => {
          const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(
            Buffer.from(message, 'utf8'),
          );
          const hex = expected.digest('hex');
          expect(hmac(message, key, 'sha256', 'hex')).toBe(hex);
          expect(Buffer.from(hmac(message, key, 'sha256', 'base64'), 'base64').toString('hex')).toBe(hex);
        },
      ),
      { numRuns: 50 },
    );
  });
});
