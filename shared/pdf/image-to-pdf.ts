import { readFile, rm, writeFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  type PDFDocument,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import sharp, { type Metadata } from 'sharp';
import { inField } from '#shared/errors.ts';
import { decodeToPng } from '#shared/image/decode-to-png.ts';
import { assertDecodable } from '#shared/image/limits.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import type { pdfPageSizes } from '#shared/pdf/limits.ts';
import { pdfLimits } from '#shared/pdf/limits.ts';
import { newPdf, savePdf } from '#shared/pdf/output.ts';
import type { SourceFormat } from '#shared/source/formats.ts';
import type { Workspace } from '#shared/workspace.ts';

type PageSize = (typeof pdfPageSizes)[number];

/** Portrait sizes in points; a landscape image gets the landscape page. */
const paperSizes: Record<Exclude<PageSize, 'fit'>, [number, number]> = {
  a4: [595.28, 841.89],
  letter: [612, 792],
};

/** Photographic formats become JPEG in the PDF (unless they carry transparency); the rest stay lossless. */
const photographic: ReadonlySet<SourceFormat> = new Set(['jpg', 'webp', 'avif', 'heic']);
/** Formats whose stated resolution libvips reads (for the page size of `fit`). */
const densityReadable: ReadonlySet<SourceFormat> = new Set(['jpg', 'png', 'webp', 'tiff']);
const jpegQuality = 92;

export interface ImageSource {
  path: string;
  format: SourceFormat;
}

export interface ImagesToPdfOptions {
  pageSize: PageSize;
  /** White space around the image on every side, in points. */
  margin: number;
  /** Where decoded images are written on their way into the PDF. */
  workspace: Workspace;
  onProgress?: (percent: number) => void;
}

/** An image ready to be drawn: an XObject in the document and its size. */
interface PlacedImage {
  ref: PDFRef;
  width: number;
  height: number;
  /** Points per pixel from the image's own resolution (72 dpi when it states none). */
  pointsPerPixel: number;
}

/** What sharp reads of the header alone; nothing is decoded. Undefined for formats it cannot read. */
async function headerOf(source: ImageSource): Promise<Metadata | undefined> {
  if (!densityReadable.has(source.format)) return undefined;
  try {
    return await sharp(source.path).metadata();
  } catch (error) {
    mapNativeError('sharp', error);
  }
}

const resolution = (density: number | undefined) =>
  density !== undefined && density >= 10 && density <= 2400 ? 72 / density : 1;

async function embedJpeg(doc: PDFDocument, bytes: Uint8Array, pointsPerPixel: number): Promise<PlacedImage> {
  const image = await doc.embedJpg(bytes);
  return { ref: image.ref, width: image.width, height: image.height, pointsPerPixel };
}

/** Raw samples as a Flate image XObject, with the alpha channel as a soft mask (also for watermark images). */
export function embedSamples(
  doc: PDFDocument,
  data: Buffer,
  width: number,
  height: number,
  channels: number,
): PDFRef {
  const colourChannels = channels >= 3 ? 3 : 1;
  const hasAlpha = channels === 2 || channels === 4;
  const colour = Buffer.alloc(width * height * colourChannels);
  const alpha = hasAlpha ? Buffer.alloc(width * height) : undefined;
  for (let pixel = 0, at = 0; pixel < width * height; pixel += 1, at += channels) {
    for (let c = 0; c < colourChannels; c += 1) colour[pixel * colourChannels + c] = data[at + c]!;
    if (alpha) alpha[pixel] = data[at + colourChannels]!;
  }
  const common = { Type: 'XObject', Subtype: 'Image', Width: width, Height: height, BitsPerComponent: 8 };
  const smask = alpha
    ? doc.context.register(
        doc.context.stream(deflateSync(alpha), {
          ...common,
          ColorSpace: 'DeviceGray',
          Filter: 'FlateDecode',
        }),
      )
    : undefined;
  return doc.context.register(
    doc.context.stream(deflateSync(colour), {
      ...common,
      ColorSpace: colourChannels === 3 ? 'DeviceRGB' : 'DeviceGray',
      Filter: 'FlateDecode',
      ...(smask ? { SMask: smask } : {}),
    }),
  );
}

/** A JPEG that needs no turning and no colour conversion can go into the PDF byte for byte. */
function passesThrough(source: ImageSource, header: Metadata | undefined): header is Metadata {
  return (
    source.format === 'jpg' &&
    header !== undefined &&
    (header.orientation ?? 1) === 1 &&
    (header.space === 'srgb' || header.space === 'b-w') &&
    (header.channels === 3 || header.channels === 1)
  );
}

async function embedImage(doc: PDFDocument, source: ImageSource, workspace: Workspace): Promise<PlacedImage> {
  const header = await headerOf(source);
  const pointsPerPixel = resolution(header?.density);
  if (passesThrough(source, header)) {
    assertDecodable({ width: header.width ?? 0, height: header.height ?? 0, frames: 1 });
    return embedJpeg(doc, await readFile(source.path), pointsPerPixel);
  }
  // Every format, BMP, ICO and HEIC included, as an upright sRGB PNG within the pixel limits.
  const decoded = await decodeToPng(source.path, source.format, workspace);
  try {
    const image = sharp(decoded.path);
    const { hasAlpha } = await image.metadata();
    const opaque = !hasAlpha || (await image.clone().stats()).isOpaque;
    if (opaque && photographic.has(source.format)) {
      const jpeg = await image.clone().removeAlpha().jpeg({ quality: jpegQuality }).toBuffer();
      return await embedJpeg(doc, jpeg, pointsPerPixel);
    }
    const pixels = opaque ? image.clone().removeAlpha() : image.clone().ensureAlpha();
    const { data, info } = await pixels.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    const ref = embedSamples(doc, data, info.width, info.height, info.channels);
    return { ref, width: info.width, height: info.height, pointsPerPixel };
  } catch (error) {
    mapNativeError('sharp', error);
  } finally {
    await rm(decoded.path, { force: true });
  }
}

/** Page size and where the image goes on it. */
export function layout(
  image: { width: number; height: number; pointsPerPixel: number },
  pageSize: PageSize,
  margin: number,
): { page: [number, number]; x: number; y: number; width: number; height: number } {
  if (pageSize === 'fit') {
    let width = image.width * image.pointsPerPixel;
    let height = image.height * image.pointsPerPixel;
    // Viewers need no side over 200 inches: scale the image down to fit one.
    const room = pdfLimits.maxPageSidePoints - 2 * margin;
    const shrink = Math.min(1, room / width, room / height);
    width = Math.max(1, width * shrink);
    height = Math.max(1, height * shrink);
    return { page: [width + 2 * margin, height + 2 * margin], x: margin, y: margin, width, height };
  }
  const [short, long] = paperSizes[pageSize];
  const landscape = image.width > image.height;
  const page: [number, number] = landscape ? [long, short] : [short, long];
  const scale = Math.min((page[0] - 2 * margin) / image.width, (page[1] - 2 * margin) / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  return { page, x: (page[0] - width) / 2, y: (page[1] - height) / 2, width, height };
}

/**
 * One page per image, in order. JPEGs go in unchanged where they can; other photographs (WebP,
 * AVIF, HEIC, turned or CMYK JPEGs) become JPEG; everything else is stored lossless with its
 * transparency as a soft mask. EXIF orientation is applied; of an animation, the first frame is used.
 */
export async function imagesToPdf(
  sources: readonly ImageSource[],
  outputPath: string,
  options: ImagesToPdfOptions,
): Promise<{ pages: number }> {
  const doc = await newPdf();
  for (const [index, source] of sources.entries()) {
    try {
      const image = await embedImage(doc, source, options.workspace);
      const place = layout(image, options.pageSize, options.margin);
      const page = doc.addPage(place.page);
      const name = page.node.newXObject('Image', image.ref);
      page.pushOperators(
        pushGraphicsState(),
        concatTransformationMatrix(place.width, 0, 0, place.height, place.x, place.y),
        drawObject(name),
        popGraphicsState(),
      );
    } catch (error) {
      throw inField(`sources.${index}`, error);
    }
    options.onProgress?.(Math.round(((index + 1) / sources.length) * 90));
  }
  await writeFile(outputPath, await savePdf(doc));
  return { pages: sources.length };
}
