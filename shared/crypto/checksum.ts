import { downloadSource, type SourceOptions } from '#shared/source/download.ts';
import { createDigest } from '#shared/text/hash.ts';
import type { HashAlgorithm } from '#shared/text/schemas.ts';

export interface Checksum {
  algorithm: HashAlgorithm;
  hash: string;
  sizeBytes: number;
}

/** The digest of a remote file, computed chunk by chunk while it downloads (any format). */
export async function checksumOf(
  sourceUrl: string,
  algorithm: HashAlgorithm,
  options: Omit<SourceOptions, 'accept' | 'onChunk'>,
): Promise<Checksum> {
  const digest = createDigest(algorithm);
  const source = await downloadSource(sourceUrl, {
    ...options,
    accept: 'any',
    onChunk: (chunk) => digest.update(chunk),
  });
  return { algorithm, hash: digest.digest('hex'), sizeBytes: source.sizeBytes };
}
