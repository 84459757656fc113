import sharp, { type Sharp } from 'sharp';
import { ApiError } from '#shared/errors.ts';
import { type Rgba, white } from '#shared/image/colour.ts';
import { openImage } from '#shared/image/decode.ts';
import { fontFamilies, useShippedFonts } from '#shared/image/fonts.ts';
import { type RequestedFormat, writableFormat } from '#shared/image/formats.ts';
import { eachFrame, type RawFrames, toRawFrames } from '#shared/image/frames.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { type ImageFile, type ImageSource, imageFile, outputPath } from '#shared/image/output-file.ts';
import { renderImage } from '#shared/image/render.ts';
import { defaultTarget } from '#shared/image/resize.ts';
import type { watermarkFonts, watermarkPositions } from '#shared/image/tools-schema.ts';
import type { Workspace } from '#shared/workspace.ts';

export interface WatermarkOptions {
  /** The text of the mark, or `image`, a downloaded source. */
  text?: string | undefined;
  image?: ImageSource | undefined;
  fontSize?: number | undefined;
  color?: Rgba | undefined;
  font: (typeof watermarkFonts)[number];
  position: (typeof watermarkPositions)[number];
  opacity: number;
  margin?: number | undefined;
  scale: number;
  rotation: number;
  outputFormat?: RequestedFormat | undefined;
  quality?: number | undefined;
}

/** A mark ready to be laid over the base: 4-channel pixels, alpha already scaled by the opacity. */
interface Mark {
  data: Buffer;
  width: number;
  height: number;
}

/** Pango markup escapes the characters it gives a meaning. */
const markupText = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll("'", '&#39;')
    .replaceAll('"', '&quot;');

const hex = (value: number) => Math.round(value).toString(16).padStart(2, '0');

/**
 * Text in pixels: rendered at 72 dpi, so that a point is a pixel, in the shipped fonts (fontconfig
 * falls back to Noto for scripts Liberation lacks, CJK included). Lines wrap at `wrapWidth`.
 */
function textImage(text: string, options: WatermarkOptions, fontSize: number, wrapWidth: number): Sharp {
  // Every glyph fits in a fontSize square and a line in 1.5 of it: the bound holds before pango lays out.
  const estimate = [...text].length * fontSize * fontSize * 1.5;
  if (estimate > imageLimits.maxPixels) {
    throw new ApiError(
      'validation_failed',
      `fontSize: ${[...text].length} characters at ${fontSize} px could need ${Math.round(estimate / 1e6)} megapixels; at most ${imageLimits.maxPixels / 1e6} are allowed.`,
    );
  }
  useShippedFonts();
  const colour = options.color ?? white;
  const markup = `<span foreground="#${hex(colour.r)}${hex(colour.g)}${hex(colour.b)}">${markupText(text)}</span>`;
  return sharp({
    text: {
      text: markup,
      font: `${fontFamilies[options.font]} ${fontSize}`,
      dpi: 72,
      rgba: true,
      width: Math.max(1, wrapWidth),
      wrap: 'word-char',
    },
  });
}

/** The image mark scaled to `scale` of the base width, its first frame, its header checked first. */
async function imageMark(source: ImageSource, width: number): Promise<Sharp> {
  const opened = await openImage(source.path, source.format, { targetSize: { width } });
  return opened.image.resize({ width, withoutEnlargement: false });
}

/** Renders the mark, turned, fitted inside the base less its margins, alpha scaled by the opacity. */
async function buildMark(options: WatermarkOptions, base: { width: number; height: number }, margin: number) {
  const room = { width: Math.max(1, base.width - 2 * margin), height: Math.max(1, base.height - 2 * margin) };
  const shorter = Math.min(base.width, base.height);
  const drawn = options.image
    ? await imageMark(options.image, Math.max(1, Math.round(base.width * options.scale)))
    : textImage(
        options.text ?? '',
        options,
        options.fontSize ?? Math.max(12, Math.round(shorter * 0.05)),
        room.width,
      );
  let pixels = await drawn.toColourspace('srgb').ensureAlpha().png().toBuffer();
  if (options.rotation % 360 !== 0) {
    pixels = await sharp(pixels)
      .rotate(options.rotation, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .png()
      .toBuffer();
  }
  const { data, info } = await sharp(pixels)
    .resize({ ...room, fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .ensureAlpha()
    .linear([1, 1, 1, options.opacity], [0, 0, 0, 0])
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Where the mark's top-left corner goes for a compass position. */
export function placeMark(
  position: string,
  base: { width: number; height: number },
  mark: { width: number; height: number },
  margin: number,
): { left: number; top: number } {
  const x = position.includes('west')
    ? margin
    : position.includes('east')
      ? base.width - mark.width - margin
      : Math.round((base.width - mark.width) / 2);
  const y = position.startsWith('north')
    ? margin
    : position.startsWith('south')
      ? base.height - mark.height - margin
      : Math.round((base.height - mark.height) / 2);
  return { left: Math.max(0, x), top: Math.max(0, y) };
}

/** Lays the mark over every frame: once where `position` says, or repeated over the whole image. */
async function stamp(
  raw: RawFrames,
  mark: Mark,
  options: WatermarkOptions,
  margin: number,
): Promise<RawFrames> {
  const input = { raw: { width: mark.width, height: mark.height, channels: 4 as const } };
  if (options.position === 'tile') {
    // Tiles stand `margin` apart: the tile is the mark with transparent room on its right and below.
    const tile = await sharp(mark.data, input)
      .extend({ right: margin, bottom: margin, background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .png()
      .toBuffer();
    return eachFrame(raw, (image) => image.composite([{ input: tile, tile: true, gravity: 'northwest' }]));
  }
  const at = placeMark(options.position, raw, mark, margin);
  return eachFrame(raw, (image) => image.composite([{ input: mark.data, ...input, ...at }]));
}

/**
 * Stamps a text or an image over an image (every frame of an animation), in its own format unless
 * another is asked.
 */
export async function watermarkImage(
  source: ImageSource,
  options: WatermarkOptions,
  workspace: Workspace,
): Promise<ImageFile> {
  const target = options.outputFormat ? writableFormat(options.outputFormat) : defaultTarget(source.format);
  const path = await outputPath(workspace, target);
  await renderImage(
    source,
    {
      target,
      animated: true,
      quality: options.quality,
      effort: 'balanced',
      keepMetadata: false,
      iconSizes: 'fit',
      svgMode: 'trace',
      edit: async (opened) => {
        const raw = await toRawFrames(opened.image, opened.frames);
        const margin = options.margin ?? Math.round(Math.min(raw.width, raw.height) * 0.02);
        const mark = await buildMark(options, raw, margin);
        return stamp(raw, mark, options, margin);
      },
    },
    path,
  );
  return imageFile(path, target);
}
