import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import { type PDFContext, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';
import { recompressImage } from '#shared/pdf/compress-image.ts';
import { displayedSize } from '#shared/pdf/info.ts';
import { openPdf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import { dropUnreachable } from '#shared/pdf/prune.ts';

export const compressionLevels = ['low', 'medium', 'high'] as const;
export type CompressionLevel = (typeof compressionLevels)[number];

/** What each level does to raster images; text, vector art and fonts are never touched. */
export const levelSettings: Record<CompressionLevel, { dpi: number; quality: number }> = {
  low: { dpi: 200, quality: 85 },
  medium: { dpi: 150, quality: 75 },
  high: { dpi: 100, quality: 60 },
};

export interface CompressResult {
  originalBytes: number;
  outputBytes: number;
  imagesRecompressed: number;
  /** The result was not smaller, so the source's bytes were kept. */
  keptSource: boolean;
}

const key = (name: string) => PDFName.of(name);
const imageSubtype = PDFName.of('Image');
const metadataType = PDFName.of('Metadata');

/** Images that serve as another image's soft mask or stencil mask: they stay lossless. */
function maskRefs(context: PDFContext): Set<PDFRef> {
  const masks = new Set<PDFRef>();
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream) || object.dict.get(PDFName.of('Subtype')) !== imageSubtype)
      continue;
    for (const name of ['SMask', 'Mask']) {
      const ref = object.dict.get(key(name));
      if (ref instanceof PDFRef) masks.add(ref);
    }
  }
  return masks;
}

/** Content streams, fonts and the like stored without any filter get Flate: lossless. */
function deflatePlainStream(stream: PDFRawStream): PDFRawStream | undefined {
  const { dict } = stream;
  if (dict.has(key('Filter')) || dict.get(PDFName.Type) === metadataType || stream.contents.length < 64) {
    return undefined;
  }
  const packed = deflateSync(stream.contents, { level: 9 });
  if (packed.length >= stream.contents.length) return undefined;
  const copy = dict.clone(dict.context);
  copy.set(key('Filter'), PDFName.FlateDecode);
  copy.delete(key('DecodeParms'));
  return PDFRawStream.of(copy, packed);
}

/**
 * Makes a PDF smaller without touching its text and vector content: raster images are brought down
 * to the level's resolution (for the largest page) and JPEG quality, unfiltered streams are deflated,
 * unreachable objects are dropped, and the file is written with object streams. When the result is
 * not smaller than the source, the source's bytes are written unchanged.
 */
export async function compressPdf(
  sourcePath: string,
  outputPath: string,
  level: CompressionLevel,
  onProgress?: (percent: number) => void,
): Promise<CompressResult> {
  const source = await readFile(sourcePath);
  const { doc } = await openPdf(source);
  const { context } = doc;
  const { dpi, quality } = levelSettings[level];
  const longestSide = Math.max(
    ...doc.getPages().map((page) => {
      const size = displayedSize(page);
      return Math.max(size.width, size.height);
    }),
  );
  const settings = { maxSidePixels: Math.ceil((longestSide / 72) * dpi), quality };
  const masks = maskRefs(context);

  const streams = context
    .enumerateIndirectObjects()
    .filter((entry): entry is [PDFRef, PDFRawStream] => entry[1] instanceof PDFRawStream);
  let imagesRecompressed = 0;
  for (const [index, [ref, stream]] of streams.entries()) {
    const isImage = stream.dict.get(PDFName.of('Subtype')) === imageSubtype;
    const replacement = isImage
      ? await recompressImage(context, stream, settings, masks.has(ref))
      : deflatePlainStream(stream);
    if (replacement) {
      context.assign(ref, replacement);
      if (isImage) imagesRecompressed += 1;
    }
    if (index % 16 === 0) onProgress?.(Math.round((index / streams.length) * 90));
  }
  dropUnreachable(context);

  const output = await savePdf(doc);
  if (output.length >= source.length) {
    await copyFile(sourcePath, outputPath);
    return { originalBytes: source.length, outputBytes: source.length, imagesRecompressed, keptSource: true };
  }
  await writeFile(outputPath, output);
  return { originalBytes: source.length, outputBytes: output.length, imagesRecompressed, keptSource: false };
}
