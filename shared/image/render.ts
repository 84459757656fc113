import type { Sharp } from 'sharp';
import { assertEveryFrameWritten } from '#shared/image/animation-frames.ts';
import { writeBmp } from '#shared/image/bitmap-output.ts';
import { opaque, type Rgba, transparent, white } from '#shared/image/colour.ts';
import { fitsExactPalette } from '#shared/image/colour-count.ts';
import { type OpenedImage, openImage } from '#shared/image/decode.ts';
import { type EncodeSettings, withEncoder } from '#shared/image/encode.ts';
import {
  animatedTargets,
  type ImageInputFormat,
  type ImageOutputFormat,
  opaqueTargets,
} from '#shared/image/formats.ts';
import { framesImage, type RawFrames } from '#shared/image/frames.ts';
import { writeIcon } from '#shared/image/icon-output.ts';
import type { Fit } from '#shared/image/limits.ts';
import { writeOpened } from '#shared/image/render-failure.ts';
import { type SvgMode, writeSvg } from '#shared/image/svg-output.ts';

export interface Resize {
  width?: number | undefined;
  height?: number | undefined;
  fit: Fit;
  /** A sharp gravity (`centre`, `north`, …) or strategy (`attention`, `entropy`). */
  position?: string | undefined;
  withoutEnlargement: boolean;
}

/** Everything that decides an output, whatever route asked for it. */
export interface RenderPlan {
  target: ImageOutputFormat;
  resize?: Resize | undefined;
  /** Keep the frames of an animation when the target holds them. */
  animated: boolean;
  /** The caller's colour, for flattening and for padding; defaults depend on the target. */
  background?: Rgba | undefined;
  quality?: number | undefined;
  lossless?: boolean | undefined;
  effort: EncodeSettings['effort'];
  keepMetadata: boolean;
  /** Sizes of an ICO's entries; `fit` stores the image as one entry of at most 256 px a side. */
  iconSizes: readonly number[] | 'fit';
  svgMode: SvgMode;
  /**
   * png without a quality: count the output's colours and write a palette exactly when it has at
   * most 256 (image-optimize). Otherwise a palette is used when the source stores one.
   */
  countColours?: boolean | undefined;
  /**
   * Work on the decoded pixels (upright, every kept frame) before any resize and the encoder:
   * image-transform's operations, image-watermark's mark.
   */
  edit?: ((opened: OpenedImage) => Promise<RawFrames>) | undefined;
}

/** Smart-crop strategies work on one frame; libvips refuses them on an animation. */
const strategies: ReadonlySet<string> = new Set(['attention', 'entropy']);

function resized(image: Sharp, resize: Resize | undefined, padding: Rgba, frames: number): Sharp {
  if (!resize || (resize.width === undefined && resize.height === undefined)) return image;
  const position = resize.position ?? 'centre';
  return image.resize({
    width: resize.width,
    height: resize.height,
    fit: resize.fit,
    position: frames > 1 && strategies.has(position) ? 'centre' : position,
    withoutEnlargement: resize.withoutEnlargement,
    background: padding,
  });
}

/** Output pixels of one frame, estimated before resizing, to pace the slower encoders. */
function outputPixels(width: number, height: number, resize: Resize | undefined): number {
  if (resize?.width && resize.height) return resize.width * resize.height;
  if (resize?.width) return resize.width * Math.ceil((resize.width * height) / width);
  if (resize?.height) return resize.height * Math.ceil((resize.height * width) / height);
  return width * height;
}

/** The opened image with the plan's edit applied to its pixels. */
async function edited(opened: OpenedImage, edit: NonNullable<RenderPlan['edit']>): Promise<OpenedImage> {
  const raw = await edit(opened);
  return {
    ...opened,
    image: framesImage(raw),
    width: raw.width,
    height: raw.height,
    hasAlpha: raw.channels % 2 === 0,
  };
}

/** Writes an opened image as the plan's target to `path`. */
async function writeTarget(source: OpenedImage, plan: RenderPlan, path: string): Promise<void> {
  const { target } = plan;
  const opened = plan.edit ? await edited(source, plan.edit) : source;
  const flattenOnto = opaque(plan.background ?? white);
  const padding = plan.background ?? (opaqueTargets.has(target) ? white : transparent);
  const image = resized(opened.image, plan.resize, padding, opened.frames);
  if (target === 'bmp') return writeBmp(image, flattenOnto, path);
  if (target === 'ico') return writeIcon(image, plan.iconSizes, path);
  if (target === 'svg') {
    return writeSvg(image, { mode: plan.svgMode, hasAlpha: opened.hasAlpha, quality: plan.quality }, path);
  }
  const palette =
    target === 'png' && plan.countColours && plan.quality === undefined
      ? await fitsExactPalette(image)
      : opened.isPalette;
  const settings: EncodeSettings = {
    quality: plan.quality,
    lossless: plan.lossless,
    palette,
    effort: plan.effort,
    pixels: outputPixels(opened.width, opened.height, plan.resize),
    flattenOnto,
    keepMetadata: plan.keepMetadata,
    timing: opened.frames > 1 ? opened.timing : undefined,
  };
  await withEncoder(image, target, settings).toFile(path);
}

/**
 * Decodes the source, applies orientation and any resize, and writes the target format to `path`.
 * Failures of libvips are mapped to the contract's codes (shared/native-errors.ts). A GIF that
 * libvips refuses for a damaged frame is read again leniently, keeping the frames that decode. An
 * animation written as gif or webp is held to its source's frame count.
 */
export async function renderImage(
  source: { path: string; format: ImageInputFormat },
  plan: RenderPlan,
  path: string,
): Promise<void> {
  const { target } = plan;
  const opened = await openImage(source.path, source.format, {
    animated: plan.animated && animatedTargets.has(target),
    targetSize: plan.resize,
  });
  const { written } = await writeOpened(opened, (image) => writeTarget(image, plan, path));
  if (written.frames > 1 && (target === 'gif' || target === 'webp')) {
    await assertEveryFrameWritten(path, target, written.frames, written.timing);
  }
}
