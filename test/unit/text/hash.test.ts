import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashText } from '#shared/text/hash.ts';
import { hashAlgorithms } from '#shared/text/limits.ts';

// Known answers: FIPS 180-2 appendices (SHA-1, SHA-2) and NIST's SHA-3 examples for "abc" and the
// empty message, RFC 1321 §A.5 (MD5), RFC 7693 Appendix A (BLAKE2b-512).
const vectors = [
  ['md5', 'abc', '900150983cd24fb0d6963f7d28e17f72'],
  ['md5', '', 'd41d8cd98f00b204e9800998ecf8427e'],
  ['sha1', 'abc', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
  ['sha256', 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  [
    'sha256',
    'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  ],
  [
    'sha384',
    'abc',
    'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
  ],
  [
    'sha512',
    'abc',
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  ],
  ['sha3-256', '', 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a'],
  ['sha3-256', 'abc', '3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532'],
  [
    'sha3-512',
    '',
    'a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a615b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26',
  ],
  [
    'sha3-512',
    'abc',
    'b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0',
  ],
  [
    'blake2b512',
    'abc',
    'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
  ],
] as const;

describe('hashText', () => {
  it.each(vectors)('%s(%j) matches the published digest', (algorithm, message, digest) => {
    expect(hashText(message, algorithm, 'hex')).toBe(digest);
  });

  it('hashes the UTF-8 bytes and writes base64 on request', () => {
    const expected = createHash('sha256').update(Buffer.from('Grüße, 世界', 'utf8')).digest('base64');
    expect(hashText('Grüße, 世界', 'sha256', 'base64')).toBe(expected);
  });

  it('base64 and hex are the same digest', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.constantFrom(...hashAlgorithms), (text, algorithm) => {
        const hex = hashText(text, algorithm, 'hex');
        expect(Buffer.from(hashText(text, algorithm, 'base64'), 'base64').toString('hex')).toBe(hex);
      }),
      { numRuns: 50 },
    );
  });
});
