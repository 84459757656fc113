import { ApiError } from '#shared/errors.ts';

/**
 * The BMP header variants, told apart by the size their first field states: the OS/2 1.x and
 * Windows 2.x core header (12 bytes, 16-bit sides, 3-byte palette entries), the OS/2 2.x header
 * (64 bytes, or 16 when its optional tail is left out) and the Windows info headers (40, 52, 56,
 * 108, 124 bytes), whose first 40 bytes share one layout.
 */
const CORE = 12;
const OS2_SHORT = 16;
const INFO = 40;
const OS2 = 64;
const infoSizes: ReadonlySet<number> = new Set([INFO, 52, 56, 108, 124]);
const FILE_HEADER = 14;

/** The part of a BMP's header every variant states. */
export interface BmpHeader {
  headerSize: number;
  width: number;
  /** Rows, whichever way they are stored (a negative height in the file means top-down). */
  height: number;
  bitsPerPixel: number;
}

/** The most bytes of a file that `readBmpHeader` looks at. */
export const BMP_HEADER_BYTES = FILE_HEADER + OS2;

const damaged = (why: string) =>
  new ApiError('invalid_source_file', `The BMP header could not be read: ${why}.`);

/** Reads the size and depth a BMP's header states, for every header variant, without its pixels. */
export function readBmpHeader(bytes: Buffer): BmpHeader {
  if (bytes.length < FILE_HEADER + 4 || bytes.toString('latin1', 0, 2) !== 'BM') {
    throw damaged('the file is too short or does not start with BM');
  }
  const headerSize = bytes.readUInt32LE(FILE_HEADER);
  const known =
    headerSize === CORE || headerSize === OS2_SHORT || headerSize === OS2 || infoSizes.has(headerSize);
  if (!known) throw damaged(`its header size ${headerSize} is none that the format defines`);
  if (bytes.length < FILE_HEADER + Math.min(headerSize, INFO))
    throw damaged('the file ends inside its header');
  const at = FILE_HEADER + 4;
  if (headerSize === CORE) {
    return {
      headerSize,
      width: bytes.readUInt16LE(at),
      height: bytes.readUInt16LE(at + 2),
      bitsPerPixel: bytes.readUInt16LE(at + 6),
    };
  }
  return {
    headerSize,
    width: bytes.readInt32LE(at),
    height: Math.abs(bytes.readInt32LE(at + 4)),
    bitsPerPixel: bytes.readUInt16LE(at + 10),
  };
}

/** OS/2 2.x compression codes that mean something else in a Windows header. */
const OS2_HUFFMAN_1D = 3;
const OS2_RLE24 = 4;

/**
 * The same BMP with a 40-byte BITMAPINFOHEADER, for a decoder that reads only the Windows
 * variants: a core header's 16-bit sides widened and its 3-byte palette entries padded to 4; an
 * OS/2 2.x header cut to the 40 bytes it shares with Windows. The pixel rows are copied as they are.
 */
export function withInfoHeader(bytes: Buffer): Buffer {
  const header = readBmpHeader(bytes);
  if (infoSizes.has(header.headerSize)) return bytes;
  const pixelOffset = bytes.readUInt32LE(10);
  const oldPalette = FILE_HEADER + header.headerSize;
  const info = Buffer.alloc(INFO);
  info.writeUInt32LE(INFO, 0);
  info.writeInt32LE(header.width, 4);
  let entrySize = 4;
  if (header.headerSize === CORE) {
    entrySize = 3;
    info.writeInt32LE(header.height, 8);
    info.writeUInt16LE(1, 12);
    info.writeUInt16LE(header.bitsPerPixel, 14);
  } else {
    bytes.copy(info, 8, FILE_HEADER + 8, FILE_HEADER + Math.min(header.headerSize, INFO));
    const compression = header.headerSize > OS2_SHORT ? info.readUInt32LE(16) : 0;
    if (compression === OS2_HUFFMAN_1D || compression === OS2_RLE24) {
      throw new ApiError(
        'invalid_source_file',
        'The BMP uses OS/2 Huffman or RLE24 compression, which is not read here; save it as an uncompressed BMP.',
      );
    }
  }
  const paletteBytes = Math.max(0, Math.min(pixelOffset, bytes.length) - oldPalette);
  const entries = Math.floor(paletteBytes / entrySize);
  const palette = Buffer.alloc(entries * 4);
  for (let i = 0; i < entries; i += 1)
    bytes.copy(palette, i * 4, oldPalette + i * entrySize, oldPalette + i * entrySize + 3);
  // Palette entries the header leaves to the bit depth: the decoder counts them from `colors` or the depth.
  if (header.bitsPerPixel <= 8 && info.readUInt32LE(32) === 0)
    info.writeUInt32LE(Math.min(entries, 1 << header.bitsPerPixel), 32);
  const pixels = bytes.subarray(Math.min(pixelOffset, bytes.length));
  const fileHeader = Buffer.from(bytes.subarray(0, FILE_HEADER));
  const offset = FILE_HEADER + INFO + palette.length;
  fileHeader.writeUInt32LE(offset, 10);
  fileHeader.writeUInt32LE(offset + pixels.length, 2);
  return Buffer.concat([fileHeader, info, palette, pixels]);
}
