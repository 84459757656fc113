import { writeFile } from 'node:fs/promises';
import ImageTracer from 'imagetracerjs';
import sharp, { type Sharp } from 'sharp';
import { defaultQuality } from '#shared/image/encode.ts';
import { TRACE_MAX_SIDE } from '#shared/image/limits.ts';

export type SvgMode = 'trace' | 'embed';

/** Colours the tracer quantises to: enough for logos and drawings, bounded for photos. */
const TRACE_COLOURS = 16;

const root = (width: number, height: number, viewBox: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width="${width}" height="${height}" viewBox="${viewBox}">`;

/**
 * Traces the image to vector paths with imagetracerjs: colours quantised to a palette, each colour
 * layer's edges traced to straight lines and quadratic curves. Tracing runs on at most 512 px a
 * side (it is linear in pixels but slow in JavaScript); the SVG states the full output size.
 */
async function trace(image: Sharp, width: number, height: number): Promise<string> {
  const { data, info } = await image
    .resize(TRACE_MAX_SIDE, TRACE_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const traced = ImageTracer.imagedataToSVG(
    {
      width: info.width,
      height: info.height,
      data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    },
    {
      numberofcolors: TRACE_COLOURS,
      colorsampling: 2,
      pathomit: 4,
      roundcoords: 1,
      viewbox: true,
      desc: false,
    },
  );
  // The tracer's own root element is replaced by one that states the output size.
  const body = traced.slice(traced.indexOf('>') + 1);
  return `${root(width, height, `0 0 ${info.width} ${info.height}`)}${body}`;
}

/** The raster inside an SVG: PNG where there is transparency, JPEG otherwise. */
async function embed(
  image: Sharp,
  width: number,
  height: number,
  hasAlpha: boolean,
  quality: number | undefined,
): Promise<string> {
  const [type, bytes] = hasAlpha
    ? ['image/png', await image.png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer()]
    : ['image/jpeg', await image.jpeg({ quality: quality ?? defaultQuality.jpg, mozjpeg: true }).toBuffer()];
  const href = `data:${type};base64,${bytes.toString('base64')}`;
  return `${root(width, height, `0 0 ${width} ${height}`)}<image width="${width}" height="${height}" xlink:href="${href}"/></svg>`;
}

export interface SvgOutput {
  mode: SvgMode;
  hasAlpha: boolean;
  quality?: number | undefined;
}

/** Writes the pipeline as an SVG, traced or embedded. */
export async function writeSvg(image: Sharp, output: SvgOutput, path: string): Promise<void> {
  // The pipeline is materialised once to learn its final size (after any resize).
  const { data, info } = await image.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const flat = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  const svg =
    output.mode === 'trace'
      ? await trace(flat, info.width, info.height)
      : await embed(
          flat,
          info.width,
          info.height,
          info.channels === 4 || info.channels === 2,
          output.quality,
        );
  await writeFile(path, svg);
}
