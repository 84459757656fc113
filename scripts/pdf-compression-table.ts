/**
 * Prints the table of what /pdf-compress does at each level to three kinds of document, made here
 * from scratch so that anyone can reproduce it: `node scripts/pdf-compression-table.ts`.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
  StandardFonts,
} from 'pdf-lib';
import sharp from 'sharp';
import { compressPdf } from '#shared/pdf/compress.ts';
import { type CompressionLevel, compressionLevels } from '#shared/pdf/limits.ts';

/** Photo-like pixels: blurred noise with a colour gradient. */
async function photoPixels(width: number, height: number): Promise<Buffer> {
  const noise = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 50 },
    },
  })
    .blur(1.2)
    .raw()
    .toBuffer();
  const gradient = await sharp({ create: { width, height, channels: 3, background: '#3060a0' } })
    .composite([{ input: noise, raw: { width, height, channels: 3 }, blend: 'overlay' }])
    .removeAlpha()
    .raw()
    .toBuffer();
  return gradient;
}

const inch = 72;

/** Two A4 pages scanned at 300 dpi as JPEG (quality 90). */
async function scannedPages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let page = 0; page < 2; page += 1) {
    const pixels = await photoPixels(2480, 3508);
    const jpeg = await sharp(pixels, { raw: { width: 2480, height: 3508, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    doc
      .addPage([595.28, 841.89])
      .drawImage(await doc.embedJpg(jpeg), { x: 0, y: 0, width: 595.28, height: 841.89 });
  }
  return doc.save();
}

/** Four 10 × 7.5 in slides, each with a 1600 × 1200 lossless (Flate) photo and a title. */
async function slides(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  for (let slide = 0; slide < 4; slide += 1) {
    const page = doc.addPage([10 * inch, 7.5 * inch]);
    const image = doc.context.register(
      doc.context.stream(deflateSync(await photoPixels(1600, 1200)), {
        Type: 'XObject',
        Subtype: 'Image',
        Width: 1600,
        Height: 1200,
        BitsPerComponent: 8,
        ColorSpace: 'DeviceRGB',
        Filter: 'FlateDecode',
      }),
    );
    const name = page.node.newXObject('Im', image);
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(6 * inch, 0, 0, 4.5 * inch, 2 * inch, 1 * inch),
      drawObject(name),
      popGraphicsState(),
    );
    page.drawText(`Slide ${slide + 1}: quarterly figures`, { x: inch, y: 6.5 * inch, size: 28, font });
  }
  return doc.save({ useObjectStreams: false });
}

/** A letter page with a 3000 × 2000 photo (JPEG, quality 90) drawn 3 in wide, as a thumbnail. */
async function photoDrawnSmall(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const jpeg = await sharp(await photoPixels(3000, 2000), { raw: { width: 3000, height: 2000, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  doc
    .addPage([612, 792])
    .drawImage(await doc.embedJpg(jpeg), { x: inch, y: 6 * inch, width: 3 * inch, height: 2 * inch });
  return doc.save();
}

/** Twenty pages of text only. */
async function textReport(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const line = 'The quick brown fox jumps over the lazy dog, and the report goes on for another line. ';
  for (let page = 0; page < 20; page += 1) {
    const sheet = doc.addPage([612, 792]);
    for (let row = 0; row < 48; row += 1) sheet.drawText(line, { x: 54, y: 740 - row * 14, size: 10, font });
  }
  return doc.save({ useObjectStreams: false });
}

const documents: Array<[string, () => Promise<Uint8Array>]> = [
  ['2 A4 pages scanned at 300 dpi (JPEG)', scannedPages],
  ['4 slides with 1600 × 1200 lossless photos', slides],
  ['a 3000 × 2000 photo drawn 3 in wide', photoDrawnSmall],
  ['20 pages of text only', textReport],
];

const size = (bytes: number) =>
  bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(2)} MB` : `${Math.round(bytes / 1000)} KB`;
const share = (bytes: number, of: number) => {
  const percent = (bytes / of) * 100;
  return `${percent < 1 ? percent.toFixed(1) : Math.round(percent)} %`;
};

const dir = await mkdtemp(join(tmpdir(), 'pdf-table-'));
try {
  const rows = ['| Document | Source | low | medium | high |', '|---|---|---|---|---|'];
  for (const [label, make] of documents) {
    const source = join(dir, 'source.pdf');
    await writeFile(source, await make());
    const original = (await stat(source)).size;
    const cells: string[] = [];
    for (const level of compressionLevels as readonly CompressionLevel[]) {
      const output = join(dir, `${level}.pdf`);
      const result = await compressPdf(source, output, level);
      cells.push(`${size(result.outputBytes)} (${share(result.outputBytes, original)})`);
    }
    rows.push(`| ${label} | ${size(original)} | ${cells.join(' | ')} |`);
  }
  process.stdout.write(`${rows.join('\n')}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
