import { createHmac } from 'node:crypto';
import type { HmacAlgorithm } from '#shared/crypto/schemas.ts';
import type { DigestEncoding } from '#shared/text/schemas.ts';

/** HMAC (RFC 2104) of the message bytes under the key bytes. */
export function hmac(
  message: string | Uint8Array,
  key: string | Uint8Array,
  algorithm: HmacAlgorithm,
  encoding: DigestEncoding,
): string {
  return createHmac(algorithm, key).update(message).digest(encoding);
}
