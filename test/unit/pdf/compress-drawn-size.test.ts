import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  concatTransformationMatrix,
  degrees,
  drawObject,
  PDFDocument,
  PDFName,
  type PDFNumber,
  PDFRawStream,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressPdf } from '#shared/pdf/compress.ts';
import { photo } from './fixtures.ts';

let dir = '';
let jpeg: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-drawn-'));
  // 3000 × 2000 pixels: drawn 1 inch wide, that is 3000 dpi.
  jpeg = await (await photo(3000, 2000)).jpeg({ quality: 90 }).toBuffer();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const LETTER: [number, number] = [612, 792];
/** The largest page's bound at level high (100 dpi): 792 pt is 11 in, 1100 px. */
const PAGE_BOUND = 1100;

async function compressHigh(bytes: Uint8Array) {
  const source = join(dir, `in-${Math.random()}.pdf`);
  const output = join(dir, `out-${Math.random()}.pdf`);
  await writeFile(source, bytes);
  const result = await compressPdf(source, output, 'high');
  return { result, doc: await PDFDocument.load(await readFile(output)) };
}

/** Width × height of every image XObject of a document. */
function imageSizes(doc: PDFDocument): Array<[number, number]> {
  const number = (stream: PDFRawStream, name: string) =>
    (stream.dict.get(PDFName.of(name)) as PDFNumber).asNumber();
  return doc.context
    .enumerateIndirectObjects()
    .filter(
      (entry): entry is [PDFRef, PDFRawStream] =>
        entry[1] instanceof PDFRawStream && entry[1].dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
    )
    .map(([, stream]) => [number(stream, 'Width'), number(stream, 'Height')]);
}

describe('pdf-compress sizes each image by how large it is drawn', () => {
  it('brings a 3000 × 2000 image drawn 1 inch wide down to 100 × 67 at 100 dpi', async () => {
    const doc = await PDFDocument.create();
    doc.addPage(LETTER).drawImage(await doc.embedJpg(jpeg), { x: 72, y: 72, width: 72, height: 48 });
    const { result, doc: out } = await compressHigh(await doc.save());
    expect(result.imagesRecompressed).toBe(1);
    expect(imageSizes(out)).toEqual([[100, 67]]);
  });

  it('keeps what the largest placement needs when the image is drawn at several sizes', async () => {
    const doc = await PDFDocument.create();
    const image = await doc.embedJpg(jpeg);
    doc.addPage(LETTER).drawImage(image, { x: 72, y: 72, width: 72, height: 48 });
    // Turned a quarter: 4 in along the image's width, whatever the page's axes.
    doc.addPage(LETTER).drawImage(image, {
      x: 400,
      y: 72,
      width: 288,
      height: 192,
      rotate: degrees(90),
    });
    const { doc: out } = await compressHigh(await doc.save());
    expect(imageSizes(out)).toEqual([[400, 267]]);
  });

  it('composes the matrices of form XObjects the image is drawn in', async () => {
    const doc = await PDFDocument.create();
    const image = await doc.embedJpg(jpeg);
    // A form with its own /Matrix (half size) drawing the image 4 in wide, itself drawn at half size.
    const form = doc.context.register(
      doc.context.stream('q 288 0 0 192 0 0 cm /Im0 Do Q', {
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, 288, 192],
        Matrix: [0.5, 0, 0, 0.5, 0, 0],
        Resources: { XObject: { Im0: image.ref } },
      }),
    );
    const page = doc.addPage(LETTER);
    const name = page.node.newXObject('Fm', form);
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(0.5, 0, 0, 0.5, 100, 100),
      drawObject(name),
      popGraphicsState(),
    );
    const { doc: out } = await compressHigh(await doc.save());
    // 4 in × ½ × ½ = 1 in.
    expect(imageSizes(out)).toEqual([[100, 67]]);
  });

  it('sizes a soft mask like the image it masks', async () => {
    // 1500 × 1000, over the page bound too, drawn 2 in wide: 200 px at 100 dpi.
    const rgb = await (await photo(1500, 1000)).raw().toBuffer();
    const alpha = Buffer.alloc(1500 * 1000, 255);
    alpha.fill(0, 0, 1500 * 500);
    const png = await sharp(rgb, { raw: { width: 1500, height: 1000, channels: 3 } })
      .joinChannel(alpha, { raw: { width: 1500, height: 1000, channels: 1 } })
      .png()
      .toBuffer();
    const doc = await PDFDocument.create();
    doc.addPage(LETTER).drawImage(await doc.embedPng(png), { x: 72, y: 72, width: 144, height: 96 });
    const { doc: out } = await compressHigh(await doc.save());
    expect(imageSizes(out)).toEqual([
      [200, 133],
      [200, 133],
    ]);
  });

  it('falls back to the largest page for an image drawn only in a pattern', async () => {
    const doc = await PDFDocument.create();
    const image = await doc.embedJpg(jpeg);
    const pattern = doc.context.register(
      doc.context.stream('q 72 0 0 48 0 0 cm /Im0 Do Q', {
        Type: 'Pattern',
        PatternType: 1,
        PaintType: 1,
        TilingType: 1,
        BBox: [0, 0, 72, 48],
        XStep: 72,
        YStep: 48,
        Resources: { XObject: { Im0: image.ref } },
      }),
    );
    const page = doc.addPage(LETTER);
    page.node.set(PDFName.of('Resources'), doc.context.obj({ Pattern: { P0: pattern }, ColorSpace: {} }));
    page.node.addContentStream(
      doc.context.register(doc.context.stream('/Pattern cs /P0 scn 0 0 612 792 re f')),
    );
    const { doc: out } = await compressHigh(await doc.save());
    expect(imageSizes(out)).toEqual([[PAGE_BOUND, 733]]);
  });
});
