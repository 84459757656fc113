import { readFile } from 'node:fs/promises';
import exifReader from 'exif-reader';
import sharp from 'sharp';
import { decodeBmp } from '#shared/image/bmp.ts';
import { animatedSources, type ImageInputFormat } from '#shared/image/formats.ts';
import { readHeader } from '#shared/image/header.ts';
import { largestIcon } from '#shared/image/ico.ts';
import { assertDecodable } from '#shared/image/limits.ts';
import { mapNativeError } from '#shared/native-errors.ts';

type ExifValue = string | number | boolean | null | ExifValue[] | { [key: string]: ExifValue };

export interface ImageMetadata {
  format: ImageInputFormat;
  width: number;
  height: number;
  pages: number;
  animated: boolean;
  hasAlpha: boolean;
  space: string;
  density: number | null;
  orientation: number;
  sizeBytes: number;
  exif?: Record<string, Record<string, ExifValue>>;
}

/** JSON-safe EXIF values: dates as ISO text, binary blobs (maker notes, thumbnails) left out. */
function jsonValue(value: unknown): ExifValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return undefined;
  if (Array.isArray(value)) {
    return value.map(jsonValue).filter((item): item is ExifValue => item !== undefined);
  }
  return undefined;
}

/** The EXIF block grouped as it is stored (Image, Photo, GPSInfo, Iop); undefined when absent or unreadable. */
export function readExif(block: Buffer | undefined): ImageMetadata['exif'] {
  if (!block || block.length === 0) return undefined;
  let parsed: ReturnType<typeof exifReader>;
  try {
    parsed = exifReader(block);
  } catch {
    return undefined;
  }
  const groups: NonNullable<ImageMetadata['exif']> = {};
  for (const group of ['Image', 'Photo', 'GPSInfo', 'Iop'] as const) {
    const tags = parsed[group];
    if (!tags) continue;
    const entries = Object.entries(tags)
      .map(([name, value]) => [name, jsonValue(value)] as const)
      .filter((entry): entry is readonly [string, ExifValue] => entry[1] !== undefined);
    if (entries.length > 0) groups[group] = Object.fromEntries(entries);
  }
  return Object.keys(groups).length > 0 ? groups : undefined;
}

/**
 * Describes an image from its header (libvips reads headers without decoding pixels). BMP and ICO
 * are decoded to learn about their alpha; their size is checked against the pixel limit first.
 * width and height are those of the upright image, as every other route writes it.
 */
export async function readImageMetadata(source: {
  path: string;
  format: ImageInputFormat;
  sizeBytes: number;
}): Promise<ImageMetadata> {
  const { format, sizeBytes } = source;
  const header = await readHeader(source.path, format);
  const meta = header.metadata;
  const common = { format, width: header.width, height: header.height, pages: header.pages, sizeBytes };
  if (meta) {
    const exif = readExif(meta.exif);
    return {
      ...common,
      animated: animatedSources.has(format) && header.pages > 1,
      hasAlpha: meta.hasAlpha,
      space: meta.space ?? 'srgb',
      density: meta.density ?? null,
      orientation: meta.orientation ?? 1,
      ...(exif ? { exif } : {}),
    };
  }
  assertDecodable({ ...header, frames: 1 });
  const bytes = await readFile(source.path);
  if (format === 'bmp') {
    const bitmap = decodeBmp(bytes);
    const space = bitmap.bitsPerPixel === 1 ? 'b-w' : 'srgb';
    const hasAlpha = bitmap.channels === 4;
    return { ...common, animated: false, hasAlpha, space, density: bitmap.density ?? null, orientation: 1 };
  }
  const icon = await largestIcon(bytes);
  let hasAlpha: boolean;
  try {
    hasAlpha = (await sharp(icon.png).metadata()).hasAlpha;
  } catch (error) {
    mapNativeError('sharp', error);
  }
  return {
    ...common,
    width: icon.width,
    height: icon.height,
    animated: false,
    hasAlpha,
    space: 'srgb',
    density: null,
    orientation: 1,
  };
}
