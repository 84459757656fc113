import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { ApiError } from '#shared/errors.ts';

/** Signature (8 bytes), then the IHDR chunk: length (4), type (4), 13 bytes of data and its CRC (4). */
const pngHeaderBytes = 33;

/**
 * Refuses a PNG whose IHDR chunk fails its checksum. libvips reads the size from such a header, but
 * libpng refuses the file once its pixels are read, and libvips then loses the reason: sharp throws
 * "Unknown error", or only that the output could not be written, which no entry of the native-error
 * table may take for a damaged source. Checked before decoding instead, the refusal names what is
 * wrong. A first chunk that is not a 13-byte IHDR is left to libvips, which refuses it as a corrupt
 * header.
 */
export function assertIntactPngHeader(bytes: Uint8Array, what = 'The PNG'): void {
  if (bytes.length < pngHeaderBytes) return;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, pngHeaderBytes);
  if (view.readUInt32BE(8) !== 13 || view.toString('latin1', 12, 16) !== 'IHDR') return;
  if (crc32(view.subarray(12, 29)) !== view.readUInt32BE(29)) {
    throw new ApiError(
      'invalid_source_file',
      `${what} is damaged: the checksum of its header chunk (IHDR) does not match its contents.`,
    );
  }
}

/** The same check on a PNG file, reading only its first bytes. */
export async function assertIntactPngFile(path: string): Promise<void> {
  const file = await open(path);
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(pngHeaderBytes), 0, pngHeaderBytes, 0);
    assertIntactPngHeader(buffer.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}
