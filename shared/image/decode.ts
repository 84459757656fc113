import { readFile } from 'node:fs/promises';
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import type { SourceTiming } from '#shared/image/animation-frames.ts';
import { decodeBmp, type Pixels } from '#shared/image/bmp.ts';
import { animatedSources, type ImageInputFormat } from '#shared/image/formats.ts';
import { openLenientGif } from '#shared/image/gif-lenient.ts';
import { type ImageHeader, readHeader } from '#shared/image/header.ts';
import { decodeHeicImage } from '#shared/image/heic.ts';
import { largestIcon } from '#shared/image/ico.ts';
import { assertDecodable, imageLimits } from '#shared/image/limits.ts';
import { assertIntactPngFile, assertIntactPngHeader } from '#shared/image/png-header.ts';
import { assertCompletePngFile } from '#shared/image/png-integrity.ts';
import { profiledPixels } from '#shared/image/profiled-pixels.ts';
import { assertFilterWork } from '#shared/image/svg-references.ts';
import { mapNativeError } from '#shared/native-errors.ts';

export interface OpenOptions {
  /** Keep every frame of a GIF or WebP animation (for targets that hold frames). */
  animated?: boolean;
  /** The size the result should reach, so that an SVG is rendered sharp at that size. */
  targetSize?: { width?: number | undefined; height?: number | undefined };
}

/** A decodable image: a sharp pipeline over it, upright, with what the encoders need to know. */
export interface OpenedImage {
  image: Sharp;
  /** Size of one upright frame as the pipeline yields it. */
  width: number;
  height: number;
  frames: number;
  /** Delays and loop of a kept animation, as the encoders are to write them. */
  timing?: SourceTiming | undefined;
  hasAlpha: boolean;
  /** The source stores a palette (GIF, palette PNG, low-depth ICO/BMP): a palette output loses nothing. */
  isPalette: boolean;
  header: ImageHeader;
  /**
   * Decodes every pixel of the source again, into nothing, and throws when it cannot: tells a
   * damaged source from a failure of ours when libvips lost its message. Absent when the pixels
   * were decoded before the pipeline (BMP, ICO, HEIC): there the pipeline reads no file.
   */
  decodeSource?: () => Promise<unknown>;
  /**
   * A GIF read again as browsers read it, for when libvips refuses a damaged frame (render-failure.ts):
   * the same frames kept, decoded leniently. Absent for other formats.
   */
  reopenLeniently?: () => Promise<OpenedImage>;
}

const SVG_DPI = 72;

/** The density an SVG is rendered at: enough for the target size, never over the pixel limit. */
function svgDensity(header: ImageHeader, target: OpenOptions['targetSize']): number {
  const scales = [
    target?.width ? target.width / header.width : 0,
    target?.height ? target.height / header.height : 0,
  ];
  const wanted = Math.max(1, ...scales);
  // Enlarging stops at the pixel limit; an SVG over the limit at its own size is refused, not shrunk.
  const ceiling = Math.max(1, Math.sqrt(imageLimits.maxPixels / (header.width * header.height)));
  return SVG_DPI * Math.min(wanted, ceiling);
}

const fromPixels = (pixels: Pixels) =>
  sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: pixels.channels } });

/**
 * Opens an image of any input format as a sharp pipeline: the header is read and its size and
 * frame count checked against the limits, and a PNG's header checksum, before a pixel is decoded;
 * libvips decodes what it can, BMP, ICO and HEIC are decoded by their own libraries and handed over
 * as raw pixels (a HEIC's with its ICC profile). EXIF orientation is applied. Colour is converted to
 * sRGB when the pipeline is written.
 */
export async function openImage(
  path: string,
  format: ImageInputFormat,
  options: OpenOptions = {},
): Promise<OpenedImage> {
  const header = await readHeader(path, format);
  const meta = header.metadata;
  const animated = options.animated === true && animatedSources.has(format) && header.pages > 1;
  const frames = animated ? header.pages : 1;
  const timing = animated && meta?.delay ? { delays: meta.delay, loop: meta.loop ?? 0 } : undefined;
  const base = { header, frames, timing, isPalette: meta?.isPalette === true };

  if (format === 'bmp') {
    assertDecodable({ ...header, frames: 1 });
    const pixels = decodeBmp(await readFile(path));
    return {
      ...base,
      image: fromPixels(pixels),
      width: pixels.width,
      height: pixels.height,
      hasAlpha: pixels.channels === 4,
      isPalette: pixels.bitsPerPixel <= 8,
    };
  }

  if (format === 'ico') {
    if (header.pages > imageLimits.maxFrames) assertDecodable({ ...header, frames: header.pages });
    const icon = await largestIcon(await readFile(path));
    assertDecodable({ width: icon.width, height: icon.height, frames: 1 });
    assertIntactPngHeader(icon.png, 'The PNG image inside the ICO');
    const image = sharp(icon.png, { limitInputPixels: imageLimits.maxPixels, failOn: 'error' });
    let iconMeta: Metadata;
    try {
      iconMeta = await image.metadata();
    } catch (error) {
      mapNativeError('sharp', error);
    }
    return { ...base, image, width: icon.width, height: icon.height, hasAlpha: iconMeta.hasAlpha };
  }

  if (format === 'heic' && meta?.compression === 'hevc') {
    assertDecodable({ ...header, frames: 1 });
    const pixels = await decodeHeicImage(await readFile(path), meta.pagePrimary ?? 0, (size) =>
      assertDecodable({ ...size, frames: 1 }),
    );
    // libheif hands over pixels without their colour profile (Display P3 on iPhones): sharp reads it from the container.
    const image = await profiledPixels(pixels, meta.hasAlpha, meta.icc);
    return { ...base, image, width: pixels.width, height: pixels.height, hasAlpha: meta.hasAlpha };
  }

  const density = format === 'svg' ? svgDensity(header, options.targetSize) : undefined;
  const scale = density === undefined ? 1 : density / SVG_DPI;
  const width = Math.round(header.width * scale);
  const height = Math.round(header.height * scale);
  assertDecodable({ width, height, frames });
  if (header.svgFilterPrimitives) assertFilterWork(header.svgFilterPrimitives, width, height);
  if (format === 'png') {
    await assertIntactPngFile(path);
    await assertCompletePngFile(path);
  }
  const input = header.svg ?? path;
  const inputOptions: SharpOptions = {
    animated,
    failOn: 'error',
    limitInputPixels: animated ? imageLimits.maxAnimationPixels : imageLimits.maxPixels,
    ...(density === undefined ? {} : { density }),
  };
  const image = sharp(input, inputOptions).autoOrient();
  const decodeSource = () => sharp(input, inputOptions).stats();
  const reopenLeniently = format === 'gif' ? () => openLenientGif(path, header, animated) : undefined;
  return { ...base, image, width, height, hasAlpha: meta?.hasAlpha === true, decodeSource, reopenLeniently };
}
