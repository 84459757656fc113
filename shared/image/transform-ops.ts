import sharp, { type OutputInfo, type Sharp } from 'sharp';
import { ApiError } from '#shared/errors.ts';
import { type Rgba, transparent } from '#shared/image/colour.ts';
import { assertResultWithinLimits, eachFrame, frameImage, type RawFrames } from '#shared/image/frames.ts';
import type { TransformOperation } from '#shared/image/tools-schema.ts';

/** Smart-crop strategies work on one frame: an animation is cropped at the centre. */
const strategies: ReadonlySet<string> = new Set(['attention', 'entropy']);

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The part of a box inside an image; 400 naming `field` when nothing of it is. */
export function clipBox(box: Box, width: number, height: number, field: string): Box {
  const left = Math.min(box.left, width);
  const top = Math.min(box.top, height);
  const clipped = {
    left,
    top,
    width: Math.min(box.left + box.width, width) - left,
    height: Math.min(box.top + box.height, height) - top,
  };
  if (clipped.width <= 0 || clipped.height <= 0) {
    throw new ApiError(
      'validation_failed',
      `${field}: the box (${box.left}, ${box.top}, ${box.width} × ${box.height}) lies outside the ${width} × ${height} image.`,
    );
  }
  return clipped;
}

/** The largest width × height of the ratio `"w:h"` inside an image. */
export function aspectBox(ratio: string, width: number, height: number): { width: number; height: number } {
  const [w = 1, h = 1] = ratio.split(':').map((part) => Number(part.trim()));
  const wanted = w / h;
  if (width / height > wanted)
    return { width: Math.max(1, Math.min(width, Math.round(height * wanted))), height };
  return { width, height: Math.max(1, Math.min(height, Math.round(width / wanted))) };
}

/** The size of an image turned by `angle` degrees: its bounding box. */
export function rotatedSize(angle: number, width: number, height: number): { width: number; height: number } {
  const turn = ((angle % 360) + 360) % 360;
  if (turn % 90 === 0) return turn % 180 === 0 ? { width, height } : { width: height, height: width };
  const radians = (turn * Math.PI) / 180;
  const cos = Math.abs(Math.cos(radians));
  const sin = Math.abs(Math.sin(radians));
  return { width: Math.ceil(width * cos + height * sin), height: Math.ceil(width * sin + height * cos) };
}

/** An upper bound of the size an operation yields, checked against the pixel limit before it runs. */
function grownSize(
  step: TransformOperation,
  width: number,
  height: number,
): { width: number; height: number } {
  switch (step.op) {
    case 'rotate':
      return rotatedSize(step.angle, width, height);
    case 'extend':
      return { width: width + step.left + step.right, height: height + step.top + step.bottom };
    case 'resize': {
      if (step.withoutEnlargement) return { width, height };
      const w = step.width ?? Math.ceil((step.height! * width) / height);
      const h = step.height ?? Math.ceil((step.width! * height) / width);
      const scale = Math.max(w / width, h / height);
      return step.fit === 'outside' || step.fit === 'fill' || step.fit === 'cover' || step.fit === 'contain'
        ? { width: Math.max(w, Math.ceil(width * scale)), height: Math.max(h, Math.ceil(height * scale)) }
        : { width: w, height: h };
    }
    default:
      return { width, height };
  }
}

/** Pixelates a whole frame: scaled down to one pixel a block, then up again without smoothing. */
async function pixelated(image: Sharp, width: number, height: number, size: number): Promise<Sharp> {
  const { data, info } = await image
    .resize(Math.max(1, Math.round(width / size)), Math.max(1, Math.round(height / size)), {
      fit: 'fill',
      kernel: 'linear',
    })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).resize(
    width,
    height,
    { fit: 'fill', kernel: 'nearest' },
  );
}

/** A white rounded rectangle on transparency, to keep only what lies under it. */
function roundedMask(width: number, height: number, radius: number): Buffer {
  const r = Math.min(radius, width / 2, height / 2);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" rx="${r}" ry="${r}" fill="#fff"/></svg>`,
  );
}

const rawOf = (data: Buffer, info: OutputInfo) =>
  sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });

/** The background of uncovered pixels: the caller's colour, else transparent. */
const fill = (colour: Rgba | undefined) => colour ?? transparent;

/**
 * Applies one operation to every frame. Geometry that depends on the pixels (trim, smart crop) is
 * found on the first frame and applied to all, so that an animation stays one size.
 */
export async function applyOperation(
  raw: RawFrames,
  step: TransformOperation,
  field: string,
): Promise<RawFrames> {
  assertResultWithinLimits(field, grownSize(step, raw.width, raw.height), raw.frames);
  const { width, height } = raw;
  switch (step.op) {
    case 'rotate':
      return eachFrame(raw, (image) =>
        image.ensureAlpha().rotate(step.angle, { background: fill(step.background) }),
      );
    case 'flip':
      return eachFrame(raw, (image) => (step.direction === 'horizontal' ? image.flop() : image.flip()));
    case 'crop': {
      if (step.aspectRatio === undefined) {
        const box = clipBox(step as Box, width, height, field);
        return eachFrame(raw, (image) => image.extract(box));
      }
      const size = aspectBox(step.aspectRatio, width, height);
      const still = raw.frames === 1;
      const position = !still && strategies.has(step.position) ? 'centre' : step.position;
      return eachFrame(raw, (image) => image.resize({ ...size, fit: 'cover', position }));
    }
    case 'trim': {
      const { info } = await frameImage(raw, 0)
        .trim({ threshold: step.threshold })
        .toBuffer({ resolveWithObject: true })
        .catch(() => ({ info: undefined }));
      // libvips leaves an image that is all border as it is.
      if (!info || info.trimOffsetLeft === undefined) return raw;
      const box = {
        left: -(info.trimOffsetLeft ?? 0),
        top: -(info.trimOffsetTop ?? 0),
        width: info.width,
        height: info.height,
      };
      if (box.width === width && box.height === height) return raw;
      return eachFrame(raw, (image) => image.extract(box));
    }
    case 'extend':
      return eachFrame(raw, (image) =>
        image.ensureAlpha().extend({
          top: step.top,
          right: step.right,
          bottom: step.bottom,
          left: step.left,
          background: fill(step.background),
        }),
      );
    case 'resize': {
      const still = raw.frames === 1;
      return eachFrame(raw, (image) =>
        image.resize({
          width: step.width,
          height: step.height,
          fit: step.fit,
          position: !still && strategies.has(step.position) ? 'centre' : step.position,
          withoutEnlargement: step.withoutEnlargement,
          background: fill(step.background),
        }),
      );
    }
    case 'blur':
      return eachFrame(raw, (image) => image.blur(step.sigma));
    case 'sharpen':
      return eachFrame(raw, (image) => image.sharpen({ sigma: step.sigma }));
    case 'pixelate': {
      if (!step.region) return eachFrame(raw, (image) => pixelated(image, width, height, step.size));
      const box = clipBox(step.region, width, height, `${field}.region`);
      return eachFrame(raw, async (image) => {
        const part = await pixelated(image.clone().extract(box), box.width, box.height, step.size);
        const { data, info } = await part.raw().toBuffer({ resolveWithObject: true });
        const flat = await image.raw().toBuffer({ resolveWithObject: true });
        return rawOf(flat.data, flat.info).composite([
          {
            input: data,
            raw: { width: info.width, height: info.height, channels: info.channels },
            left: box.left,
            top: box.top,
          },
        ]);
      });
    }
    case 'grayscale':
      return eachFrame(raw, (image) => image.grayscale());
    case 'negate':
      return eachFrame(raw, (image) => image.negate({ alpha: false }));
    case 'normalize':
      return eachFrame(raw, (image) => image.normalise());
    case 'modulate':
      return eachFrame(raw, (image) =>
        image.modulate({
          ...(step.brightness === undefined ? {} : { brightness: step.brightness }),
          ...(step.saturation === undefined ? {} : { saturation: step.saturation }),
          ...(step.hue === undefined ? {} : { hue: step.hue }),
        }),
      );
    case 'tint':
      return eachFrame(raw, (image) => image.tint(step.color));
    case 'roundCorners': {
      const mask = roundedMask(width, height, step.radius);
      return eachFrame(raw, (image) => image.ensureAlpha().composite([{ input: mask, blend: 'dest-in' }]));
    }
  }
}
