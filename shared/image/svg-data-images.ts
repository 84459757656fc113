import { imageSize } from 'image-size';
import { ApiError } from '#shared/errors.ts';
import { svgImageLimits } from '#shared/image/limits.ts';

/**
 * Inline `data:` images of an SVG are decoded by librsvg at their own size, whatever size the SVG
 * draws them at: a 64 × 64 SVG can hold a 12 000 × 12 000 PNG that costs over a gigabyte, which
 * libvips' pixel limit (on the SVG's canvas) never sees. Each one's header is read here before
 * rendering, nested SVGs checked the same way, and the decoded pixels bounded per image and in all.
 */

/** What the images of one SVG document, and of the SVGs inside it, have used so far. */
export interface SvgImageBudget {
  pixels: number;
  nesting: number;
}

export const newImageBudget = (): SvgImageBudget => ({ pixels: 0, nesting: 1 });

const megapixels = (pixels: number) => `${Number((pixels / 1e6).toFixed(2))} megapixels`;

function payloadOf(uri: string): { mediaType: string; bytes: Buffer } | undefined {
  const comma = uri.indexOf(',');
  if (comma < 0) return undefined;
  const header = uri.slice(5, comma).toLowerCase();
  const data = uri.slice(comma + 1);
  if (/;\s*base64\s*$/.test(header)) return { mediaType: header, bytes: Buffer.from(data, 'base64') };
  let text = data;
  try {
    text = decodeURIComponent(data);
  } catch {
    // A stray % is kept as it is, as a lenient reader would.
  }
  return { mediaType: header, bytes: Buffer.from(text, 'utf8') };
}

const looksLikeSvg = (mediaType: string, bytes: Buffer) =>
  mediaType.startsWith('image/svg') ||
  /^(\uFEFF)?\s*<(\?xml|svg|!DOCTYPE|!--)/i.test(bytes.subarray(0, 256).toString('utf8'));

/**
 * Checks one `data:` URL of an SVG: a nested SVG with `checkSvg` one level deeper, a raster image
 * from its header against the pixel limit. A payload whose size cannot be read is left alone: no
 * renderer decodes what no header describes. Answers the filter primitives a nested SVG runs.
 */
export function checkDataImage(
  uri: string,
  budget: SvgImageBudget,
  checkSvg: (text: string, budget: SvgImageBudget) => { filterPrimitives: number },
): number {
  const payload = payloadOf(uri);
  if (!payload || payload.bytes.length === 0) return 0;
  if (looksLikeSvg(payload.mediaType, payload.bytes)) {
    if (budget.nesting >= svgImageLimits.maxNesting) {
      throw new ApiError(
        'invalid_source_file',
        `The SVG nests SVG images more than ${svgImageLimits.maxNesting} levels deep, the most accepted.`,
      );
    }
    budget.nesting += 1;
    const { filterPrimitives } = checkSvg(payload.bytes.toString('utf8'), budget);
    budget.nesting -= 1;
    return filterPrimitives;
  }
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(payload.bytes);
  } catch {
    return 0;
  }
  const entries = size.images ?? [{ width: size.width, height: size.height }];
  const pixels = entries.reduce((sum, entry) => sum + entry.width * entry.height, 0);
  budget.pixels += pixels;
  if (pixels > svgImageLimits.maxPixels || budget.pixels > svgImageLimits.maxPixels) {
    throw new ApiError(
      'invalid_source_file',
      `The SVG embeds raster images of ${megapixels(budget.pixels)} (the last ${size.width} × ${size.height}); at most ${megapixels(svgImageLimits.maxPixels)} are decoded inside one SVG, nested SVGs included.`,
    );
  }
  return 0;
}
