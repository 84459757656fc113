import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName, type PDFNumber, PDFRawStream, type PDFRef, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressPdf } from '#shared/pdf/compress.ts';
import { targetSize } from '#shared/pdf/compress-image.ts';
import { colourAt, near, pageText, photo, renderPage } from './fixtures.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-compress-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Compresses bytes through files, as the route does, and returns the result's bytes. */
async function compressed(bytes: Uint8Array, level: 'low' | 'medium' | 'high' = 'medium') {
  const source = join(dir, `in-${Math.random()}.pdf`);
  const output = join(dir, `out-${Math.random()}.pdf`);
  await writeFile(source, bytes);
  const result = await compressPdf(source, output, level);
  return { result, bytes: new Uint8Array(await readFile(output)) };
}

function imageStreams(doc: PDFDocument) {
  return doc.context
    .enumerateIndirectObjects()
    .filter(
      (entry): entry is [PDFRef, PDFRawStream] =>
        entry[1] instanceof PDFRawStream && entry[1].dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
    );
}

const numberOf = (stream: PDFRawStream, key: string) =>
  (stream.dict.get(PDFName.of(key)) as PDFNumber).asNumber();

describe('PDF compression', () => {
  it('keeps soft masks lossless and transparency intact', async () => {
    // Opaque photo on the left half, fully transparent on the right half.
    const width = 1600;
    const height = 1200;
    const rgb = await (await photo(width, height)).raw().toBuffer();
    const alpha = Buffer.alloc(width * height);
    for (let y = 0; y < height; y += 1) alpha.fill(255, y * width, y * width + width / 2);
    const png = await sharp(rgb, { raw: { width, height, channels: 3 } })
      .joinChannel(alpha, { raw: { width, height, channels: 1 } })
      .png()
      .toBuffer();
    const doc = await PDFDocument.create();
    const page = doc.addPage([288, 216]);
    page.drawImage(await doc.embedPng(png), { x: 0, y: 0, width: 288, height: 216 });
    const source = await doc.save();

    const { result, bytes } = await compressed(source);
    expect(result.imagesRecompressed).toBe(2);
    const out = await PDFDocument.load(bytes);
    const images = imageStreams(out);
    const main = images.find(([, stream]) => stream.dict.has(PDFName.of('SMask')))?.[1];
    const mask = out.context.lookup(main?.dict.get(PDFName.of('SMask'))) as PDFRawStream;
    expect(main?.dict.get(PDFName.of('Filter'))).toBe(PDFName.of('DCTDecode'));
    expect(mask.dict.get(PDFName.of('Filter'))).toBe(PDFName.of('FlateDecode'));
    expect([numberOf(mask, 'Width'), numberOf(mask, 'Height')]).toEqual([600, 450]);
    const rendered = await renderPage(bytes, 0, 72);
    expect(near(colourAt(rendered, 0.9, 0.5), [255, 255, 255], 2)).toBe(true);
    const before = await renderPage(source, 0, 72);
    expect(near(colourAt(rendered, 0.2, 0.5), colourAt(before, 0.2, 0.5), 40)).toBe(true);
  });

  it('leaves images it cannot read losslessly exactly as they are (CMYK JPEG)', async () => {
    const cmyk = await (await photo(1500, 1000)).toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer();
    const doc = await PDFDocument.create();
    doc.addPage([288, 216]).drawImage(await doc.embedJpg(cmyk), { x: 0, y: 0, width: 288, height: 216 });
    const { result, bytes } = await compressed(await doc.save());
    expect(result.imagesRecompressed).toBe(0);
    const [[, image] = []] = imageStreams(await PDFDocument.load(bytes));
    expect(image?.dict.get(PDFName.of('ColorSpace'))).toBe(PDFName.of('DeviceCMYK'));
    expect(Buffer.compare(Buffer.from(image!.contents), cmyk)).toBe(0);
  });

  it('drops objects nothing refers to and deflates plain streams, text intact', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Courier);
    const page = doc.addPage([300, 300]);
    page.drawText('kept', { x: 10, y: 10, size: 12, font });
    const fontKey = page.node.newFontDictionary('F', font.ref).asString();
    const lines = Array.from(
      { length: 400 },
      (_, row) => `BT ${fontKey} 8 Tf 10 ${row % 280} Td (line ${row}) Tj ET`,
    );
    const plain = doc.context.register(doc.context.stream(lines.join('\n')));
    page.node.addContentStream(plain);
    const orphan = doc.context.register(doc.context.stream(randomBytes(200_000)));
    const source = await doc.save({ useObjectStreams: false });

    const { result, bytes } = await compressed(source);
    expect(result.keptSource).toBe(false);
    expect(bytes.length).toBeLessThan(source.length - 200_000);
    const out = await PDFDocument.load(bytes);
    expect(out.context.lookup(orphan)).toBeUndefined();
    const streams = out.context.enumerateIndirectObjects().map(([, object]) => object);
    expect(
      streams.filter((object) => object instanceof PDFRawStream && !object.dict.has(PDFName.of('Filter'))),
    ).toEqual([]);
    const text = await pageText(bytes, 0);
    expect(text).toContain('kept');
    expect(text).toContain('line 399');
  });

  it('sizes images down to the longest side and never up', () => {
    expect(targetSize(3000, 1500, 600)).toEqual({ width: 600, height: 300 });
    expect(targetSize(1000, 4000, 600)).toEqual({ width: 150, height: 600 });
    expect(targetSize(500, 400, 600)).toEqual({ width: 500, height: 400 });
    expect(targetSize(10_000, 1, 600)).toEqual({ width: 600, height: 1 });
  });
});
