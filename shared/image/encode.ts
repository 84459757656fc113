import type { Sharp } from 'sharp';
import type { SourceTiming } from '#shared/image/animation-frames.ts';
import type { Rgba } from '#shared/image/colour.ts';

/** The targets sharp (libvips) writes itself. */
export type SharpTarget = 'jpg' | 'png' | 'webp' | 'avif' | 'gif' | 'tiff';

export interface EncodeSettings {
  /** 1–100 on the encoder's own scale; per-format defaults when absent. */
  quality?: number | undefined;
  /** Lossless modes of webp and avif; png uses no palette unless it is exact. */
  lossless?: boolean | undefined;
  /** A palette PNG is as exact as a true-colour one: the source stores a palette, or the output has at most 256 colours. */
  palette: boolean;
  /** `thorough` (image-optimize) spends more encoder time for smaller files. */
  effort: 'balanced' | 'thorough';
  /** Pixels of the output (one frame), to keep slow encoders within a Lambda's time. */
  pixels: number;
  /** Colour for transparent pixels when the target has no alpha. */
  flattenOnto: Rgba;
  /** Keep EXIF and XMP (the pixels still end up in sRGB, tagged with an sRGB profile). */
  keepMetadata: boolean;
  /** Delays and loop of an animation kept for gif or webp (pixels decoded outside libvips carry none). */
  timing?: SourceTiming | undefined;
}

/** sharp takes each delay up to 65 535 ms. */
const MAX_DELAY = 65_535;

const animationOf = (timing: SourceTiming | undefined) =>
  timing ? { delay: timing.delays.map((delay) => Math.min(delay, MAX_DELAY)), loop: timing.loop } : {};

/** Default quality when none is asked; each encoder's scale differs (AVIF 60 looks like JPEG 85). */
export const defaultQuality = { jpg: 85, webp: 85, avif: 60 } as const;

const LARGE = 4_000_000;

/**
 * Applies the encoder settings for one target. The choices: mozjpeg for JPEG (trellis
 * quantisation, progressive scans, 4:4:4 chroma at high quality); PNG with adaptive filtering, or a
 * libimagequant palette when it is exact or a quality is asked; WebP and AVIF at an effort
 * that fits a Lambda's seconds (lower for large images, and WebP without sharp YUV there); GIF
 * with libimagequant dithering and every frame kept, duplicates too; TIFF lossless (deflate with a horizontal predictor).
 */
export function withEncoder(image: Sharp, target: SharpTarget, settings: EncodeSettings): Sharp {
  const thorough = settings.effort === 'thorough';
  const large = settings.pixels > LARGE;
  const { quality, lossless } = settings;
  let out = settings.keepMetadata ? image.keepExif().keepXmp().withIccProfile('srgb') : image;
  switch (target) {
    case 'jpg': {
      const q = quality ?? defaultQuality.jpg;
      out = out.flatten({ background: settings.flattenOnto });
      return out.jpeg({ quality: q, mozjpeg: true, chromaSubsampling: q >= 90 ? '4:4:4' : '4:2:0' });
    }
    case 'png': {
      const palette = settings.palette || (quality !== undefined && lossless !== true);
      return out.png({
        compressionLevel: thorough ? 9 : 6,
        adaptiveFiltering: !palette,
        palette,
        ...(palette
          ? { quality: lossless ? 100 : (quality ?? 100), effort: thorough ? 10 : 7, dither: 1 }
          : {}),
      });
    }
    case 'webp':
      return out.webp({
        ...animationOf(settings.timing),
        quality: quality ?? defaultQuality.webp,
        lossless: lossless === true,
        // Sharp YUV conversion keeps colour edges crisp but doubles the encode time: not for large images.
        smartSubsample: !large,
        effort: large ? 3 : thorough ? 6 : 4,
      });
    case 'avif':
      return out.avif({
        quality: quality ?? defaultQuality.avif,
        lossless: lossless === true,
        effort: large ? 2 : thorough ? 5 : 4,
      });
    case 'gif':
      // cgif would merge a frame identical to the one before into it: every frame of the source is kept.
      return out.gif({
        ...animationOf(settings.timing),
        effort: large ? 3 : thorough ? 10 : 7,
        dither: 1,
        reuse: true,
        keepDuplicateFrames: true,
      });
    case 'tiff':
      return out.tiff({ compression: 'deflate', predictor: 'horizontal' });
  }
}
