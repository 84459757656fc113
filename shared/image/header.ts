import { open, readFile } from 'node:fs/promises';
import { imageSizeFromFile } from 'image-size/fromFile';
import sharp, { type Metadata } from 'sharp';
import { ApiError } from '#shared/errors.ts';
import { BMP_HEADER_BYTES, readBmpHeader } from '#shared/image/bmp-header.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { assertSelfContainedSvg } from '#shared/image/svg-guard.ts';
import { mapNativeError } from '#shared/native-errors.ts';

/** What an image's header states, read without decoding a pixel. */
export interface ImageHeader {
  /** Size of the upright image (EXIF orientation applied), of one frame or page. */
  width: number;
  height: number;
  /** Frames of an animation, pages of a TIFF, top-level images of a HEIC, entries of an ICO. */
  pages: number;
  /** libvips' reading, for the formats sharp reads; undefined for BMP and ICO. */
  metadata: Metadata | undefined;
  /** The checked text of an SVG, to be rendered as it was checked. */
  svg?: Buffer;
  /** Filter primitives the SVG runs (each over at most its canvas), references expanded. */
  svgFilterPrimitives?: number;
}

/** Formats whose header sharp (libvips) reads; HEIC included: libheif parses the container. */
const readBySharp: ReadonlySet<ImageInputFormat> = new Set([
  'jpg',
  'png',
  'webp',
  'avif',
  'heic',
  'svg',
  'gif',
  'tiff',
]);

/** The SVG's text, checked to be self-contained; the renderer is given these very bytes. */
export async function readSafeSvg(path: string): Promise<{ bytes: Buffer; filterPrimitives: number }> {
  const bytes = await readFile(path);
  const { filterPrimitives } = assertSelfContainedSvg(bytes.toString('utf8'));
  return { bytes, filterPrimitives };
}

async function sharpHeader(input: string | Buffer): Promise<ImageHeader> {
  let metadata: Metadata;
  try {
    // No pixel limit here: the header is read to apply our own limit with a clear message.
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (error) {
    mapNativeError('sharp', error);
  }
  return {
    width: metadata.autoOrient?.width ?? metadata.width,
    height: metadata.autoOrient?.height ?? metadata.height,
    pages: metadata.pages ?? 1,
    metadata,
  };
}

async function sizeHeader(path: string, name: string): Promise<ImageHeader> {
  let size: Awaited<ReturnType<typeof imageSizeFromFile>>;
  try {
    size = await imageSizeFromFile(path);
  } catch (error) {
    throw new ApiError('invalid_source_file', `The ${name} header could not be read: the file is damaged.`, {
      cause: error,
    });
  }
  const entries = size.images ?? [{ width: size.width, height: size.height }];
  const largest = entries.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  return { width: largest.width, height: largest.height, pages: entries.length, metadata: undefined };
}

/** A BMP's header, whichever of its variants (OS/2 core, OS/2 2.x, Windows info) the file uses. */
async function bmpHeader(path: string): Promise<ImageHeader> {
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(BMP_HEADER_BYTES), 0, BMP_HEADER_BYTES, 0);
    const { width, height } = readBmpHeader(buffer.subarray(0, bytesRead));
    return { width, height, pages: 1, metadata: undefined };
  } finally {
    await file.close();
  }
}

/** Reads the header of a sniffed image; an SVG is checked to be self-contained first. */
export async function readHeader(path: string, format: ImageInputFormat): Promise<ImageHeader> {
  if (format === 'svg') {
    const { bytes, filterPrimitives } = await readSafeSvg(path);
    return { ...(await sharpHeader(bytes)), svg: bytes, svgFilterPrimitives: filterPrimitives };
  }
  if (readBySharp.has(format)) return sharpHeader(path);
  if (format === 'bmp') return bmpHeader(path);
  return sizeHeader(path, format.toUpperCase());
}
