import { randomBytes } from 'node:crypto';
import type { RandomEncoding } from '#shared/crypto/schemas.ts';

/** Bytes from the operating system's CSPRNG; base64 padded, base64url unpadded. */
export const randomBytesEncoded = (bytes: number, encoding: RandomEncoding): string =>
  randomBytes(bytes).toString(encoding);
