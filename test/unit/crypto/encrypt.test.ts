import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decryptText } from '#shared/crypto/decrypt.ts';
import { encryptText } from '#shared/crypto/encrypt.ts';
import {
  deriveKey,
  ENVELOPE_VERSION,
  NONCE_BYTES,
  open,
  parseEnvelope,
  SALT_BYTES,
  seal,
  TAG_BYTES,
} from '#shared/crypto/envelope.ts';
import type { ApiError } from '#shared/errors.ts';
import { codeOf } from '../../support/http-error.ts';

const flipBit = (text: string, bit: number) => {
  const bytes = Buffer.from(text, 'base64url');
  const index = Math.floor(bit / 8) % bytes.length;
  bytes[index] = (bytes[index] ?? 0) ^ (1 << (bit % 8));
  return bytes.toString('base64url');
};

describe('encryptText / decryptText', () => {
  it('round-trips text, and lays the string out as version | salt | nonce | ciphertext | tag', async () => {
    const text = 'meet me at noon — 正午に会いましょう 🕛';
    const ciphertext = await encryptText(text, 'correct horse battery staple');
    expect(ciphertext).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(ciphertext, 'base64url');
    expect(bytes[0]).toBe(ENVELOPE_VERSION);
    expect(bytes).toHaveLength(1 + SALT_BYTES + NONCE_BYTES + Buffer.byteLength(text) + TAG_BYTES);
    expect(await decryptText(ciphertext, 'correct horse battery staple')).toBe(text);
  });

  it('gives a different string every time (fresh salt and nonce)', async () => {
    const [a, b] = await Promise.all([encryptText('same', 'pass'), encryptText('same', 'pass')]);
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64url').subarray(1, 1 + SALT_BYTES)).not.toEqual(
      Buffer.from(b, 'base64url').subarray(1, 1 + SALT_BYTES),
    );
  });

  it('round-trips any text and passphrase', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
        async (text, passphrase) => {
          expect(await decryptText(await encryptText(text, passphrase), passphrase)).toBe(text);
        },
      ),
      { numRuns: 3 },
    );
  });

  it('reads the passphrase in NFC, so composed and decomposed accents are the same passphrase', async () => {
    const ciphertext = await encryptText('hi', 'caf\u00e9');
    expect(await decryptText(ciphertext, 'cafe\u0301')).toBe('hi');
  });

  describe('damage', () => {
    // One ciphertext for every damage case: each check below costs a key derivation.
    const sealed = encryptText('attack at dawn', 'pass');

    it('a wrong passphrase is decrypt_failed', async () => {
      expect(await codeOf(async () => decryptText(await sealed, 'wrong'))).toBe('decrypt_failed');
    });

    it('a flipped bit (version, salt, tag) is decrypt_failed', async () => {
      const ciphertext = await sealed;
      const bits = Buffer.from(ciphertext, 'base64url').length * 8;
      // Every other position is covered by the seal/open property below.
      for (const bit of [0, 8 * 5, bits - 1]) {
        expect(await codeOf(() => decryptText(flipBit(ciphertext, bit), 'pass')), `bit ${bit}`).toBe(
          'decrypt_failed',
        );
      }
    });

    it('truncated or extended data is decrypt_failed, text that is no base64url is invalid_input', async () => {
      const ciphertext = await sealed;
      expect(await codeOf(() => decryptText(ciphertext.slice(0, -4), 'pass'))).toBe('decrypt_failed');
      expect(await codeOf(() => decryptText(`${ciphertext}A`, 'pass'))).toBe('decrypt_failed');
      expect(await codeOf(() => decryptText('AQ', 'pass'))).toBe('decrypt_failed');
      expect(await codeOf(() => decryptText('not base64url!', 'pass'))).toBe('invalid_input');
    });
  });
});

describe('seal / open under one derived key', () => {
  const salt = randomBytes(SALT_BYTES);
  const keyPromise = deriveKey('a passphrase', salt);

  it('round-trips any bytes', async () => {
    const key = await keyPromise;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (plaintext) => {
        expect(new Uint8Array(open(key, parseEnvelope(seal(key, salt, plaintext))))).toEqual(plaintext);
      }),
      { numRuns: 200 },
    );
  });

  it('detects any single flipped bit', async () => {
    const key = await keyPromise;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), (plaintext, bit) => {
        const tampered = flipBit(seal(key, salt, plaintext), bit);
        let code = 'accepted';
        try {
          open(key, parseEnvelope(tampered));
        } catch (error) {
          code = (error as ApiError).code;
        }
        expect(code).toBe('decrypt_failed');
      }),
      { numRuns: 300 },
    );
  });
});
