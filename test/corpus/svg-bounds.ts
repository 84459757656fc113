import { deflateSync } from 'node:zlib';
import { pngChunk } from '#shared/image/png-chunk.ts';

/*
 * SVGs that buy unbounded work from a few kilobytes: huge inline rasters, nested SVG images,
 * expanded <use> references and filter chains. Each is small to write and to send.
 */

/**
 * A complete, valid black PNG of `side` × `side`, 1-bit grey: 12 000² deflates to about 20 KB and
 * is written in milliseconds (sharp needs seconds to encode a solid colour that large).
 */
export function solidPng(side: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // 1 bit a pixel, greyscale
  const rows = Buffer.alloc(side * (1 + Math.ceil(side / 8))); // filter byte 0 and black pixels
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const svg = (inner: string, side = 64) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}" viewBox="0 0 ${side} ${side}">${inner}</svg>`;

const dataImage = (mediaType: string, bytes: Buffer | string) =>
  `<image width="64" height="64" href="data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}"/>`;

/** A 64 × 64 SVG drawing a PNG of `side` × `side` from a data: URL. */
export const svgWithRaster = (side: number) => svg(dataImage('image/png', solidPng(side)));

/** The same raster, `levels` SVGs deep: each SVG holds the next as a data: image. */
export function nestedSvg(levels: number, side: number): string {
  let text = svgWithRaster(side);
  for (let level = 1; level < levels; level += 1) text = svg(dataImage('image/svg+xml', text));
  return text;
}

/** `levels` groups of `fanOut` references each to the group below: fanOut^levels rectangles drawn. */
export function useAmplification(levels = 10, fanOut = 10): string {
  let defs = '<rect id="l0" width="1" height="1"/>';
  for (let level = 1; level <= levels; level += 1) {
    defs += `<g id="l${level}">${`<use href="#l${level - 1}"/>`.repeat(fanOut)}</g>`;
  }
  return svg(`<defs>${defs}</defs><use href="#l${levels}"/>`);
}

/** A chain of `count` Gaussian blurs over a `side` × `side` canvas. */
export function blurChain(count: number, side: number): string {
  const blurs = Array.from(
    { length: count },
    (_, i) =>
      `<feGaussianBlur in="${i === 0 ? 'SourceGraphic' : `b${i - 1}`}" stdDeviation="40" result="b${i}"/>`,
  ).join('');
  return svg(
    `<filter id="f" x="0" y="0" width="1" height="1">${blurs}</filter><rect width="${side}" height="${side}" fill="#c03" filter="url(#f)"/>`,
    side,
  );
}
