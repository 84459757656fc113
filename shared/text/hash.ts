import { createHash, type Hash } from 'node:crypto';
import type { DigestEncoding, HashAlgorithm } from '#shared/text/schemas.ts';

/** A streaming digest of one of the contract's algorithms (the names are OpenSSL's own). */
export const createDigest = (algorithm: HashAlgorithm): Hash => createHash(algorithm);

/** The digest of the text's UTF-8 bytes. */
export function hashText(text: string, algorithm: HashAlgorithm, encoding: DigestEncoding): string {
  return createDigest(algorithm).update(text, 'utf8').digest(encoding);
}
