import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { type PDFContext, type PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFRef } from 'pdf-lib';
import { log } from '#shared/log.ts';
import { recompressImage } from '#shared/pdf/compress-image.ts';
import { deflateBudget, deflateStream } from '#shared/pdf/compress-stream.ts';
import { storeIdenticalOnce } from '#shared/pdf/dedupe.ts';
import { type DrawnSize, drawnImageSizes, imageKey } from '#shared/pdf/drawn-sizes.ts';
import { displayedSize } from '#shared/pdf/info.ts';
import { type CompressionLevel, levelSettings } from '#shared/pdf/limits.ts';
import { openPdf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import { dropUnreachable } from '#shared/pdf/prune.ts';
import { guardRendering } from '#shared/pdf/render-guard.ts';
import { removeActiveContent } from '#shared/pdf/sanitize.ts';

export interface CompressResult {
  originalBytes: number;
  outputBytes: number;
  imagesRecompressed: number;
  /** The result was not smaller, so the source's bytes were kept. */
  keptSource: boolean;
}

const key = (name: string) => PDFName.of(name);
const imageSubtype = PDFName.of('Image');

/**
 * Images that serve as another image's soft mask or stencil mask, with the images they mask: they
 * stay lossless, and are drawn where those images are.
 */
function maskParents(context: PDFContext): Map<PDFRef, PDFRawStream[]> {
  const masks = new Map<PDFRef, PDFRawStream[]>();
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream) || object.dict.get(PDFName.of('Subtype')) !== imageSubtype)
      continue;
    for (const name of ['SMask', 'Mask']) {
      const ref = object.dict.get(key(name));
      if (ref instanceof PDFRef) masks.set(ref, [...(masks.get(ref) ?? []), object]);
    }
  }
  return masks;
}

const POINTS_PER_INCH = 72;

/**
 * The longest side, in pixels, an image needs: the level's dpi at the largest size it is drawn at
 * (a mask: the images it masks), never more than it has. When a placement is unknown (PDFium could
 * not read them all, or the image is drawn only in a pattern, an annotation or a glyph) the bound
 * is the largest page's.
 */
function neededSide(
  stream: PDFRawStream,
  drawnAs: readonly PDFRawStream[],
  drawn: Map<string, DrawnSize> | undefined,
  dpi: number,
  pageBound: number,
): number {
  const width = stream.dict.lookup(key('Width'));
  const height = stream.dict.lookup(key('Height'));
  if (!drawn || !(width instanceof PDFNumber) || !(height instanceof PDFNumber)) return pageBound;
  const sizes = drawnAs.map((image) => drawn.get(imageKey(image.contents)));
  if (sizes.length === 0 || sizes.some((size) => size === undefined)) return pageBound;
  const pixels = { width: width.asNumber(), height: height.asNumber() };
  const scale = Math.max(
    ...sizes.map((size) =>
      Math.max(
        ((size?.width ?? 0) / POINTS_PER_INCH) * (dpi / pixels.width),
        ((size?.height ?? 0) / POINTS_PER_INCH) * (dpi / pixels.height),
      ),
    ),
  );
  return Math.max(1, Math.ceil(Math.max(pixels.width, pixels.height) * Math.min(1, scale)));
}

/**
 * Image placements as pdfium lays the pages out. pdfium lays out every form XObject a page draws,
 * so form XObject cycles are cut first (`guardRendering`; the output loses only the cyclic
 * reference, which draws nothing a viewer shows); unknown when pages would still draw too much.
 */
async function placementsOf(
  doc: PDFDocument,
  source: Uint8Array,
): Promise<Map<string, DrawnSize> | undefined> {
  const hazards = guardRendering(
    doc.context,
    doc.getPages().map((page) => page.node),
    { keepImages: true },
  );
  if (hazards.overdrawnPages.length > 0) return undefined;
  if (hazards.changes.length === 0) return drawnImageSizes(source);
  return drawnImageSizes(await doc.save({ useObjectStreams: false, addDefaultPage: false }));
}

/**
 * Makes a PDF smaller without touching its text and vector content: raster images are brought down
 * to the level's resolution at the largest size each is drawn at (found by PDFium; the largest
 * page when that is unknown) and to its JPEG quality, other streams are deflated at Flate's
 * highest level, equal copies of an object are stored once, unreachable objects are dropped, and
 * the file is written with object streams (or without, when that is smaller). When the result is
 * not smaller than the source, the source's bytes are written unchanged: the answer is never
 * larger, byte for byte.
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
  // Before anything else: counted, for the log when the source is kept below.
  const activeContent = removeActiveContent(doc);
  // Equal copies of an image are then recompressed once, and stored once.
  storeIdenticalOnce(doc);
  const { dpi, quality } = levelSettings[level];
  const longestSide = Math.max(
    ...doc.getPages().map((page) => {
      const size = displayedSize(page);
      return Math.max(size.width, size.height);
    }),
  );
  const pageBound = Math.ceil((longestSide / POINTS_PER_INCH) * dpi);
  const masks = maskParents(context);

  const streams = context
    .enumerateIndirectObjects()
    .filter((entry): entry is [PDFRef, PDFRawStream] => entry[1] instanceof PDFRawStream);
  // PDFium is loaded only for documents with images to size: a text-only file never pays for it.
  const hasImages = streams.some(([, stream]) => stream.dict.get(PDFName.of('Subtype')) === imageSubtype);
  const drawn = hasImages ? await placementsOf(doc, source) : undefined;
  let imagesRecompressed = 0;
  const budget = deflateBudget();
  for (const [index, [ref, stream]] of streams.entries()) {
    const isImage = stream.dict.get(PDFName.of('Subtype')) === imageSubtype;
    const maskOf = masks.get(ref);
    const replacement = isImage
      ? await recompressImage(
          context,
          stream,
          { maxSidePixels: neededSide(stream, maskOf ?? [stream], drawn, dpi, pageBound), quality },
          maskOf !== undefined,
        )
      : deflateStream(stream, budget);
    if (replacement) {
      context.assign(ref, replacement);
      if (isImage) imagesRecompressed += 1;
    }
    if (index % 16 === 0) onProgress?.(Math.round((index / streams.length) * 90));
  }
  dropUnreachable(context);

  let output = await savePdf(doc);
  if (output.length >= source.length) {
    // Object streams cost more than they save in a file of a few objects: try without.
    const plain = await savePdf(doc, { objectStreams: false });
    if (plain.length < output.length) output = plain;
  }
  if (output.length >= source.length) {
    // Never larger: the source's own bytes come back, active content and all (it is the caller's
    // own file, unchanged; nothing the service wrote).
    if (activeContent > 0) {
      log('info', 'PDF kept as sent: cleaned of active content it would be larger', {
        sourceBytes: source.length,
        cleanedBytes: output.length,
      });
    }
    await copyFile(sourcePath, outputPath);
    return { originalBytes: source.length, outputBytes: source.length, imagesRecompressed, keptSource: true };
  }
  await writeFile(outputPath, output);
  return { originalBytes: source.length, outputBytes: output.length, imagesRecompressed, keptSource: false };
}
