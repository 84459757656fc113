import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { prepareZXingModule, type ReadResult, readBarcodes } from 'zxing-wasm/reader';
import { READ_DPI } from '#shared/codes/limits.ts';
import type { BarcodeReadResult } from '#shared/codes/schemas.ts';
import { openImage } from '#shared/image/decode.ts';
import type { ImageSource } from '#shared/image/output-file.ts';
import { writeOpened } from '#shared/image/render-failure.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { parseRangeSpec, type RangeTerm } from '#shared/pdf/ranges.ts';
import { rasterizePdf } from '#shared/pdf/rasterize.ts';
import type { Workspace } from '#shared/workspace.ts';

export type FoundCode = BarcodeReadResult['codes'][number];

let prepared = false;

/** Loads the reader's WebAssembly from the package's own file: nothing is fetched. */
function prepareReader(): void {
  if (prepared) return;
  const require = createRequire(import.meta.url);
  prepareZXingModule({
    overrides: {
      wasmBinary: new Uint8Array(readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'))),
    },
  });
  prepared = true;
}

/** zxing's format names as the contract writes symbologies: `EAN13` → `ean13`, `QRCode` → `qrcode`. */
export const symbologyName = (format: string) => format.toLowerCase().replace(/[^a-z0-9]/g, '');

function found(result: ReadResult): FoundCode {
  const { topLeft, topRight, bottomLeft, bottomRight } = result.position;
  const xs = [topLeft.x, topRight.x, bottomLeft.x, bottomRight.x];
  const ys = [topLeft.y, topRight.y, bottomLeft.y, bottomRight.y];
  const left = Math.max(0, Math.floor(Math.min(...xs)));
  const top = Math.max(0, Math.floor(Math.min(...ys)));
  return {
    type: symbologyName(result.format),
    text: result.text,
    bounds: { left, top, width: Math.ceil(Math.max(...xs)) - left, height: Math.ceil(Math.max(...ys)) - top },
  };
}

/** Reads every code zxing-cpp finds in RGBA pixels. */
export async function readPixels(pixels: {
  data: Uint8Array;
  width: number;
  height: number;
}): Promise<FoundCode[]> {
  prepareReader();
  const results = await readBarcodes(
    {
      data: new Uint8ClampedArray(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength),
      width: pixels.width,
      height: pixels.height,
      colorSpace: 'srgb',
    } as ImageData,
    { tryHarder: true, maxNumberOfSymbols: 255 },
  );
  return results.filter((result) => result.isValid).map(found);
}

/** Reads the codes of an image (its upright first frame; the pixel limits checked first). */
export async function readImageCodes(source: ImageSource): Promise<FoundCode[]> {
  const opened = await openImage(source.path, source.format);
  const { result } = await writeOpened(opened, ({ image }) =>
    image.toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true }),
  );
  return readPixels({ data: result.data, width: result.info.width, height: result.info.height });
}

/**
 * Reads the codes of PDF pages, each rendered by the PDF rasterizer at READ_DPI: `pages` given, or
 * the first `firstPages`.
 */
export async function readPdfCodes(
  path: string,
  options: {
    pages: readonly RangeTerm[] | undefined;
    firstPages: number;
    workspace: Workspace;
    deadline?: number | undefined;
  },
): Promise<FoundCode[]> {
  const pages =
    options.pages ??
    parseRangeSpec(`1-${Math.min(options.firstPages, pagesOf(await openPdfFile(path)))}`, 'pages');
  const rendered = await rasterizePdf(path, {
    format: 'png',
    dpi: READ_DPI,
    pages,
    baseName: 'page',
    workspace: options.workspace,
    deadline: options.deadline,
  });
  const images: [number, Uint8Array][] =
    rendered.kind === 'image'
      ? [[rendered.pages[0]!, await readFile(rendered.path)]]
      : Object.entries(unzipSync(await readFile(rendered.path))).map(([name, bytes]) => [
          Number(/-(\d+)\.png$/.exec(name)?.[1]),
          bytes,
        ]);
  const codes: FoundCode[] = [];
  for (const [page, png] of images) {
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    for (const code of await readPixels({ data, width: info.width, height: info.height }))
      codes.push({ ...code, page });
  }
  return codes;
}
