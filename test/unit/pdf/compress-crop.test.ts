import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName, type PDFNumber, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressPdf } from '#shared/pdf/compress.ts';
import { photo } from './fixtures.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-compress-crop-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * A 4 × 3 in page (288 × 216 pt) whose CropBox claims ten times that, showing a 2400 × 1800 photo
 * only in an annotation's appearance: PDFium reads no placement for it, so compression sizes it by
 * the largest page, which must be the page as shown (the CropBox clipped to the MediaBox).
 */
async function oversizedCropPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([288, 216]);
  page.node.set(PDFName.of('CropBox'), doc.context.obj([0, 0, 2880, 2160]));
  const jpeg = await (await photo(2400, 1800)).jpeg({ quality: 95 }).toBuffer();
  const image = await doc.embedJpg(jpeg);
  const appearance = doc.context.register(
    doc.context.stream('q 288 0 0 216 0 0 cm /Im Do Q', {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, 288, 216],
      Resources: { XObject: { Im: image.ref } },
    }),
  );
  const annotation = doc.context.register(
    doc.context.obj({ Type: 'Annot', Subtype: 'Stamp', Rect: [0, 0, 288, 216], AP: { N: appearance } }),
  );
  page.node.set(PDFName.of('Annots'), doc.context.obj([annotation]));
  return doc.save({ useObjectStreams: false });
}

describe('PDF compression and page boxes', () => {
  it('sizes images by the page as shown: the CropBox clipped to the MediaBox', async () => {
    const source = join(dir, 'in.pdf');
    const output = join(dir, 'out.pdf');
    await writeFile(source, await oversizedCropPdf());
    const result = await compressPdf(source, output, 'medium');
    expect(result.imagesRecompressed).toBe(1);
    const doc = await PDFDocument.load(await readFile(output));
    const [image] = doc.context
      .enumerateIndirectObjects()
      .map(([, object]) => object)
      .filter(
        (object): object is PDFRawStream =>
          object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
      );
    // 4 in at medium's 150 dpi: 600 pixels, not the 6000 the unclipped CropBox would allow.
    expect((image!.dict.get(PDFName.of('Width')) as PDFNumber).asNumber()).toBe(600);
  });
});
