import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { base64url, base64urlnopad } from '@scure/base';
import { type ScryptParams, scryptKey } from '#shared/crypto/scrypt-phc.ts';
import { ApiError } from '#shared/errors.ts';

/**
 * The /encrypt format, version 1: one unpadded base64url string of
 *
 *   version (1 byte, 0x01) | salt (16) | nonce (12) | ciphertext (n) | GCM tag (16)
 *
 * AES-256-GCM under a key derived from the passphrase with scrypt (N = 2^15, r = 8, p = 1, the
 * salt above); the first 29 bytes (version, salt, nonce) are the GCM additional data, so no byte
 * of the string can change unnoticed. The version byte fixes every parameter.
 */
export const ENVELOPE_VERSION = 1;
export const envelopeKdf: ScryptParams = { ln: 15, r: 8, p: 1 };
export const SALT_BYTES = 16;
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
const HEADER_BYTES = 1 + SALT_BYTES + NONCE_BYTES;
const KEY_BYTES = 32;

export interface Envelope {
  header: Uint8Array;
  salt: Uint8Array;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

export const deriveKey = (passphrase: string, salt: Uint8Array): Promise<Buffer> =>
  scryptKey(passphrase.normalize('NFC'), salt, KEY_BYTES, envelopeKdf);

export const newSalt = (): Buffer => randomBytes(SALT_BYTES);

/** Encrypts under a derived key; `salt` is the one the key was derived with. */
export function seal(key: Uint8Array, salt: Uint8Array, plaintext: Uint8Array): string {
  const nonce = randomBytes(NONCE_BYTES);
  const header = Buffer.concat([Uint8Array.of(ENVELOPE_VERSION), salt, nonce]);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES }).setAAD(header);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return base64urlnopad.encode(Buffer.concat([header, ciphertext, cipher.getAuthTag()]));
}

/**
 * Splits a ciphertext string into its parts. Text with characters outside base64url is refused as
 * invalid_input; anything else that cannot be a ciphertext (cut short, padding bits, an unknown
 * version) counts as damaged data, like a failed tag check: decrypt_failed.
 */
export function parseEnvelope(text: string): Envelope {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) {
    throw new ApiError('invalid_input', 'ciphertext is not base64url text.');
  }
  let bytes: Uint8Array;
  try {
    bytes = text.includes('=') ? base64url.decode(text) : base64urlnopad.decode(text);
  } catch (error) {
    throw new ApiError('decrypt_failed', 'ciphertext is damaged: its base64url is incomplete.', {
      cause: error,
    });
  }
  if (bytes.length < HEADER_BYTES + TAG_BYTES) {
    throw new ApiError('decrypt_failed', 'ciphertext is too short to come from /encrypt.');
  }
  if (bytes[0] !== ENVELOPE_VERSION) {
    throw new ApiError('decrypt_failed', 'ciphertext has an unknown format version.');
  }
  return {
    header: bytes.subarray(0, HEADER_BYTES),
    salt: bytes.subarray(1, 1 + SALT_BYTES),
    nonce: bytes.subarray(1 + SALT_BYTES, HEADER_BYTES),
    ciphertext: bytes.subarray(HEADER_BYTES, bytes.length - TAG_BYTES),
    tag: bytes.subarray(bytes.length - TAG_BYTES),
  };
}

/** Decrypts and authenticates; a wrong key and a changed byte look the same, on purpose. */
export function open(key: Uint8Array, envelope: Envelope): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, envelope.nonce, { authTagLength: TAG_BYTES })
      .setAAD(envelope.header)
      .setAuthTag(envelope.tag);
    return Buffer.concat([decipher.update(envelope.ciphertext), decipher.final()]);
  } catch (error) {
    throw new ApiError('decrypt_failed', 'Wrong passphrase, or the ciphertext was changed.', {
      cause: error,
    });
  }
}
