/**
 * Writes a 12-bit greyscale JPEG (extended sequential DCT, SOF1), which the ImageMagick of the test
 * machines cannot write (its libjpeg is 8-bit). Each 8 × 8 block is one flat grey, so only DC
 * coefficients are coded: one Huffman table of the 16 DC categories (5-bit codes) and an AC table
 * holding only end-of-block. A fixture writer, not a parser: the service never runs this.
 */

/** Grey levels 0–4095, one per 8 × 8 block, row by row. */
export function jpeg12(
  blocksWide: number,
  blocksHigh: number,
  level: (x: number, y: number) => number,
): Buffer {
  const segment = (marker: number, body: number[]) => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 0xff,
    ...body,
  ];
  const quantTable = [0x10, ...Array.from({ length: 64 }, () => [0, 1]).flat()]; // 16-bit entries, all 1
  const width = blocksWide * 8;
  const height = blocksHigh * 8;
  const frame = [12, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0];
  const dcCounts = [0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const dcTable = [0x00, ...dcCounts, ...Array.from({ length: 16 }, (_, i) => i)];
  const acTable = [0x10, 1, ...new Array<number>(15).fill(0), 0x00];
  const scan = [1, 1, 0x00, 0, 63, 0];

  const bits: number[] = [];
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i -= 1) bits.push((value >> i) & 1);
  };
  let previous = 0;
  for (let y = 0; y < blocksHigh; y += 1) {
    for (let x = 0; x < blocksWide; x += 1) {
      const dc = 8 * (level(x, y) - 2048); // DCT of a flat block, quantised by 1
      const diff = dc - previous;
      previous = dc;
      const category = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
      put(category, 5);
      if (category > 0) put(diff > 0 ? diff : diff + (1 << category) - 1, category);
      put(0, 1); // end of block
    }
  }
  while (bits.length % 8 !== 0) bits.push(1);
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    const byte = bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0);
    data.push(byte);
    if (byte === 0xff) data.push(0x00);
  }
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xdb, quantTable),
    ...segment(0xc1, frame),
    ...segment(0xc4, dcTable),
    ...segment(0xc4, acTable),
    ...segment(0xda, scan),
    ...data,
    0xff,
    0xd9,
  ]);
}
