import { deflateSync } from 'node:zlib';
import { zipSync } from 'fflate';
import sharp from 'sharp';
import { pngChunk } from '#shared/image/png-chunk.ts';
import { imageInputFormats } from '#shared/source/formats.ts';
import { type Bait, type Corpus, damaged, decodingRoutes, type Specimen, specimen } from './specimen.ts';
import { svgSpecimens } from './svg.ts';

/* Image specimens: damaged files of every format, pixel and frame bombs, polyglots; SVGs in svg.ts. */

export const imageFormats = imageInputFormats;

/** A PNG whose header claims `width` × `height` with a few bytes of pixel data: a decompression bomb's head. */
export function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64 * 1024))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The small JPEG with its frame header (SOF0) rewritten to claim 65500 × 65500 pixels. */
function jpegClaimingHuge(jpeg: Buffer): Buffer {
  const copy = Buffer.from(jpeg);
  for (let at = 2; at < copy.length - 9; ) {
    if (copy[at] !== 0xff) break;
    const marker = copy[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2) {
      copy.writeUInt16BE(65500, at + 5);
      copy.writeUInt16BE(65500, at + 7);
      return copy;
    }
    at += 2 + copy.readUInt16BE(at + 2);
  }
  throw new Error('no SOF marker in the generated JPEG');
}

/** A GIF with a 4000 × 4000 canvas and 2000 frames of one pixel each: 32 gigapixels once every frame is drawn. */
export function gifFrameBomb(frames = 2000, side = 4000): Buffer {
  const header = Buffer.from('GIF89a', 'latin1');
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(side, 0);
  screen.writeUInt16LE(side, 2);
  screen[4] = 0x80; // a global colour table of two entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const loop = Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0'), 0x03, 0x01, 0x00, 0x00, 0x00]);
  const frame = Buffer.from([
    0x21,
    0xf9,
    0x04,
    0x00,
    0x01,
    0x00,
    0x00,
    0x00, // graphic control: 10 ms
    0x2c,
    0x00,
    0x00,
    0x00,
    0x00,
    0x01,
    0x00,
    0x01,
    0x00,
    0x00, // one pixel at 0,0
    0x02,
    0x02,
    0x44,
    0x01,
    0x00, // LZW: clear, index 0, end
  ]);
  return Buffer.concat([
    header,
    screen,
    palette,
    loop,
    ...Array.from({ length: frames }, () => frame),
    Buffer.from([0x3b]),
  ]);
}

/** A GIF that is also JavaScript: the canvas width is the bytes `/*` and a script follows the trailer. */
function gifScriptPolyglot(gif: Buffer): Buffer {
  const copy = Buffer.from(gif);
  copy.write('/*', 6, 'latin1');
  return Buffer.concat([
    copy,
    Buffer.from('*/=alert(document.domain);//<script>alert(1)</script>', 'latin1'),
  ]);
}

/** The VP8X canvas of an extended WebP rewritten to 16777216 × 16777216. */
function webpClaimingHuge(webp: Buffer): Buffer {
  const at = webp.indexOf('VP8X', 0, 'latin1');
  if (at < 0) throw new Error('no VP8X chunk in the generated WebP');
  const copy = Buffer.from(webp);
  copy.writeUIntLE(0xffffff, at + 12, 3);
  copy.writeUIntLE(0xffffff, at + 15, 3);
  return copy;
}

/** A 2 × 2 BMP, 24-bit: sharp writes no BMP, so it is made by hand. */
function bmp(): Buffer {
  const rowBytes = 8; // 2 pixels × 3 bytes, padded to 4
  const pixels = Buffer.alloc(rowBytes * 2, 0x80);
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + pixels.length, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(2, 18);
  header.writeInt32LE(2, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(pixels.length, 34);
  return Buffer.concat([header, pixels]);
}

/** A BMP whose header claims 1 000 000 × 1 000 000 pixels. */
function bmpClaimingHuge(): Buffer {
  const copy = bmp();
  copy.writeInt32LE(1_000_000, 18);
  copy.writeInt32LE(1_000_000, 22);
  return copy;
}

/** An ICO holding one PNG image, as modern icons do. */
function ico(png: Buffer, width = 16, height = 16): Buffer {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header[6] = width % 256;
  header[7] = height % 256;
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(22, 18);
  return Buffer.concat([header, png]);
}

/** An AVIF's brand rewritten to heic: sharp ships no HEVC encoder, so no real HEIC can be made here. */
function heicLike(avif: Buffer): Buffer {
  const copy = Buffer.from(avif);
  copy.write('heic', 8, 'latin1');
  return copy;
}

export async function imageOriginals(): Promise<Record<string, Buffer>> {
  const picture = sharp({ create: { width: 48, height: 32, channels: 4, background: '#3366cc80' } });
  const png = await picture.clone().png().toBuffer();
  const avif = await picture.clone().avif({ effort: 0 }).toBuffer();
  return {
    jpg: await picture.clone().jpeg().toBuffer(),
    png,
    webp: await picture.clone().webp().toBuffer(),
    avif,
    heic: heicLike(avif),
    gif: await picture.clone().gif().toBuffer(),
    tiff: await picture.clone().tiff().toBuffer(),
    bmp: bmp(),
    ico: ico(await sharp(png).resize(16, 16).png().toBuffer()),
    svg: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32"><rect width="48" height="32" fill="#36c"/></svg>',
    ),
  };
}

export function imageSpecimens(bait: Bait, base: Record<string, Buffer>): Corpus {
  const corpus: Corpus = {};
  imageFormats.forEach((format, index) => {
    corpus[format] = damaged(format, base[format]!, 100 + index);
  });
  const pixelBomb = (format: string, bytes: Buffer, what: string): Specimen => ({
    ...specimen(`${what} (pixel bomb)`, format, bytes, 'bounded', ['invalid_source_file']),
    refusedBy: decodingRoutes,
  });
  corpus.png!.push(pixelBomb('png', pngClaiming(100_000, 100_000), 'PNG claiming 100 000 × 100 000'));
  corpus.jpg!.push(pixelBomb('jpg', jpegClaimingHuge(base.jpg!), 'JPEG claiming 65 500 × 65 500'));
  corpus.webp!.push(pixelBomb('webp', webpClaimingHuge(base.webp!), 'WebP claiming 16 777 216 squared'));
  corpus.bmp!.push(pixelBomb('bmp', bmpClaimingHuge(), 'BMP claiming 1 000 000 × 1 000 000'));
  corpus.ico!.push(
    pixelBomb('ico', ico(pngClaiming(100_000, 100_000), 0, 0), 'ICO holding a pixel-bomb PNG'),
  );
  corpus.gif!.push(
    specimen('GIF with 2000 frames on a 4000 × 4000 canvas (frame bomb)', 'gif', gifFrameBomb(), 'bounded'),
    specimen('GIF that is also JavaScript', 'gif', gifScriptPolyglot(base.gif!), 'bounded'),
    specimen(
      'JPEG named .gif with a ZIP appended',
      'gif',
      Buffer.concat([base.jpg!, zipSync({ 'a.txt': Buffer.from(bait.token) })]),
      'bounded',
    ),
  );
  corpus.svg!.push(...svgSpecimens(bait));
  return corpus;
}
