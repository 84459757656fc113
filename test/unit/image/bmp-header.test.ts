import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { decodeBmp } from '#shared/image/bmp.ts';
import { readBmpHeader, withInfoHeader } from '#shared/image/bmp-header.ts';

/** A BMP of one 24-bit pixel with a header of `size` bytes, its sides written as the variant does. */
function onePixel(
  size: number,
  options: { width?: number; height?: number; compression?: number } = {},
): Buffer {
  const { width = 1, height = 1, compression = 0 } = options;
  const file = Buffer.alloc(14 + size + 4);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(14 + size, 10);
  file.writeUInt32LE(size, 14);
  if (size === 12) {
    file.writeUInt16LE(width, 18);
    file.writeUInt16LE(height, 20);
    file.writeUInt16LE(1, 22);
    file.writeUInt16LE(24, 24);
  } else {
    file.writeInt32LE(width, 18);
    file.writeInt32LE(height, 22);
    file.writeUInt16LE(1, 26);
    file.writeUInt16LE(24, 28);
    if (size > 16) file.writeUInt32LE(compression, 30);
  }
  file.set([0x20, 0x40, 0xc0], 14 + size);
  return file;
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'read';
};

describe('BMP header variants', () => {
  it.each([12, 16, 40, 52, 56, 64, 108, 124])(
    'reads the size of a %i-byte header and decodes its pixel',
    (size) => {
      const bmp = onePixel(size);
      expect(readBmpHeader(bmp)).toMatchObject({ headerSize: size, width: 1, height: 1, bitsPerPixel: 24 });
      const pixels = decodeBmp(bmp);
      expect([pixels.width, pixels.height, ...pixels.data.subarray(0, 3)]).toEqual([1, 1, 0xc0, 0x40, 0x20]);
    },
  );

  it('reads 16-bit sides of a core header as they are (65535 × 2), not as the 32-bit fields of a Windows header', () => {
    expect(readBmpHeader(onePixel(12, { width: 65_535, height: 2 }))).toMatchObject({
      width: 65_535,
      height: 2,
    });
  });

  it('takes a negative height (top-down rows) as its size', () => {
    expect(readBmpHeader(onePixel(40, { height: -1 })).height).toBe(1);
  });

  it('refuses header sizes the format does not define, files cut in their header, and OS/2 Huffman or RLE24', () => {
    expect(refusal(() => readBmpHeader(onePixel(20)))).toMatch(/^invalid_source_file: .*header size 20/);
    expect(refusal(() => readBmpHeader(onePixel(40).subarray(0, 30)))).toMatch(/ends inside its header/);
    expect(refusal(() => withInfoHeader(onePixel(64, { compression: 3 })))).toMatch(/OS\/2 Huffman or RLE24/);
    expect(refusal(() => decodeBmp(onePixel(64, { compression: 4 })))).toMatch(/OS\/2 Huffman or RLE24/);
  });

  it('leaves a Windows-header BMP as it is', () => {
    const bmp = onePixel(124);
    expect(withInfoHeader(bmp)).toBe(bmp);
  });
});
