import { stat } from 'node:fs/promises';
import { ApiError } from '#shared/errors.ts';
import {
  type ImageOutputFormat,
  type RequestedFormat,
  sourceContentTypeOf,
  writableFormat,
} from '#shared/image/formats.ts';
import { readHeader } from '#shared/image/header.ts';
import { type ImageFile, type ImageSource, imageFile, outputPath } from '#shared/image/output-file.ts';
import { type RenderPlan, renderImage } from '#shared/image/render.ts';
import { defaultTarget } from '#shared/image/resize.ts';
import type { Workspace } from '#shared/workspace.ts';

/** The quality of lossy encoders when the caller names none (API.md). */
export const DEFAULT_OPTIMIZE_QUALITY = 80;

export interface OptimizeOptions {
  /** Absent: 80 for jpg, webp and avif; png stays lossless unless maxBytes is given. */
  quality?: number | undefined;
  outputFormat?: RequestedFormat | undefined;
  maxWidth?: number | undefined;
  maxHeight?: number | undefined;
  lossless?: boolean | undefined;
  maxBytes?: number | undefined;
}

export interface OptimizedImage extends ImageFile {
  originalSize: number;
  outputSize: number;
  /** The source's bytes came back unchanged: nothing smaller was found. */
  unchanged: boolean;
}

/**
 * The quality to encode at first, or undefined for a lossless png. A png is quantised to a palette
 * (lossy) only when the caller asks for it: an explicit quality, or maxBytes to meet.
 */
function firstQuality(target: ImageOutputFormat, options: OptimizeOptions): number | undefined {
  const lossyAsked = options.quality !== undefined || options.maxBytes !== undefined;
  if (target === 'png' && (options.lossless === true || !lossyAsked)) return undefined;
  return options.quality ?? DEFAULT_OPTIMIZE_QUALITY;
}

/** Whether lowering `quality` makes the target smaller. */
function hasQualityKnob(target: ImageOutputFormat, lossless: boolean | undefined): boolean {
  if (target === 'jpg') return true;
  return lossless !== true && (target === 'webp' || target === 'avif' || target === 'png');
}

/** Writes at each quality asked, keeping only the latest file; answers its size. */
function encoderAt(source: ImageSource, plan: Omit<RenderPlan, 'quality'>, workspace: Workspace) {
  let attempt = 0;
  return async (quality: number | undefined): Promise<{ path: string; size: number }> => {
    attempt += 1;
    const path = await outputPath(workspace, plan.target, `optimized-${attempt}`);
    await renderImage(source, { ...plan, quality }, path);
    return { path, size: (await stat(path)).size };
  };
}

/**
 * Re-encodes an image for size: metadata dropped, the encoders' slower, smaller settings, an
 * optional downscale into maxWidth × maxHeight. A png stays lossless unless a quality or maxBytes
 * is given: an exact palette when it has at most 256 colours, else true colour at level 9. With
 * maxBytes, the highest quality (at most `quality`) whose file fits is found by bisection: the
 * first encode at `quality`, then at most 7 bisection steps over 1…quality-1, so 8 encodes at
 * most. The answer is never larger than the source: when no encode beats it, the source's own
 * bytes come back (unless it had to be scaled down to meet maxWidth/maxHeight, which the source
 * itself would not).
 */
export async function optimizeImage(
  source: ImageSource & { sizeBytes: number },
  options: OptimizeOptions,
  workspace: Workspace,
): Promise<OptimizedImage> {
  const target = options.outputFormat ? writableFormat(options.outputFormat) : defaultTarget(source.format);
  if (options.lossless && target === 'jpg') {
    throw new ApiError(
      'validation_failed',
      'lossless: jpg has no lossless mode; choose png, webp or avif, or leave lossless out.',
    );
  }
  const header = await readHeader(source.path, source.format);
  const withinBox =
    (options.maxWidth === undefined || header.width <= options.maxWidth) &&
    (options.maxHeight === undefined || header.height <= options.maxHeight);
  const plan: Omit<RenderPlan, 'quality'> = {
    target,
    resize: withinBox
      ? undefined
      : { width: options.maxWidth, height: options.maxHeight, fit: 'inside', withoutEnlargement: true },
    animated: true,
    lossless: options.lossless,
    effort: 'thorough',
    keepMetadata: false,
    iconSizes: 'fit',
    svgMode: 'trace',
    countColours: true,
  };
  const encode = encoderAt(source, plan, workspace);
  const limit = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const quality = firstQuality(target, options);

  let best = await encode(quality);
  if (best.size > limit && quality !== undefined && hasQualityKnob(target, options.lossless)) {
    let low = 1;
    let high = quality - 1;
    let fitting: typeof best | undefined;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const attempt = await encode(middle);
      if (attempt.size <= limit) {
        fitting = attempt;
        low = middle + 1;
      } else {
        high = middle - 1;
        if (attempt.size < best.size) best = attempt;
      }
    }
    if (fitting) best = fitting;
  }

  const sourceWins = withinBox && source.sizeBytes <= best.size;
  if (sourceWins && source.sizeBytes <= limit) {
    return {
      path: source.path,
      format: source.format,
      contentType: sourceContentTypeOf[source.format],
      originalSize: source.sizeBytes,
      outputSize: source.sizeBytes,
      unchanged: true,
    };
  }
  if (best.size > limit) {
    throw new ApiError(
      'validation_failed',
      `maxBytes: the image cannot be made to fit ${limit} bytes as ${target} (the smallest file reached ` +
        `${best.size} bytes); allow more bytes, set maxWidth/maxHeight, or choose webp or avif.`,
    );
  }
  return {
    ...imageFile(best.path, target),
    originalSize: source.sizeBytes,
    outputSize: best.size,
    unchanged: false,
  };
}
