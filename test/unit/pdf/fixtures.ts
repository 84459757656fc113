import { deflateSync } from 'node:zlib';
import { PDFiumLibrary } from '@hyzyla/pdfium';
import { unzipSync } from 'fflate';
import {
  concatTransformationMatrix,
  degrees,
  drawObject,
  PDFDocument,
  PDFName,
  PDFString,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  StandardFonts,
} from 'pdf-lib';
import sharp, { type Sharp } from 'sharp';

/** A colour per page number, so that a rendered page shows which page it is. */
export function pageColour(page: number): [number, number, number] {
  const palette: Array<[number, number, number]> = [
    [220, 30, 30],
    [30, 160, 40],
    [30, 60, 220],
    [230, 180, 20],
    [150, 40, 170],
    [20, 170, 170],
  ];
  return palette[(page - 1) % palette.length]!;
}

export interface TextPdfOptions {
  pages?: number;
  /** Page sizes in points, cycled through. */
  sizes?: Array<[number, number]>;
  /** Rotation per page, cycled through. */
  rotations?: number[];
  title?: string;
}

/**
 * Text and vector pages: "Page N" in Helvetica and a block filling the left half of the page in
 * `pageColour(N)`.
 */
export async function textPdf(options: TextPdfOptions = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const sizes = options.sizes ?? [[300, 400]];
  const rotations = options.rotations ?? [0];
  for (let index = 0; index < (options.pages ?? 3); index += 1) {
    const [width, height] = sizes[index % sizes.length]!;
    const page = doc.addPage([width, height]);
    const [r, g, b] = pageColour(index + 1);
    page.drawRectangle({ x: 0, y: 0, width: width / 2, height, color: rgb(r / 255, g / 255, b / 255) });
    page.drawText(`Page ${index + 1}`, { x: width / 2 + 10, y: height / 2, size: 14, font });
    page.setRotation(degrees(rotations[index % rotations.length]!));
  }
  if (options.title) doc.setTitle(options.title);
  doc.setAuthor('Test Author');
  doc.setCreator('fixture generator');
  doc.setProducer('pdf-lib');
  return doc.save();
}

/** Noise-textured photo-like pixels, so that JPEG has real work to do. */
export async function photo(width: number, height: number): Promise<Sharp> {
  const noise = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .blur(2)
    .raw()
    .toBuffer();
  return sharp(noise, { raw: { width, height, channels: 3 } });
}

export interface ImagePdfOptions {
  /** Pixels of the embedded JPEG photo. */
  jpegSize?: [number, number];
  /** Pixels of the embedded raw RGB image (Flate-compressed, as scanners and pdf-lib's PNG path write). */
  flateSize?: [number, number];
}

/**
 * An image-heavy document: page 1 shows a high-resolution JPEG over the whole page, page 2 a large
 * Flate RGB image, page 3 text only. Pages are 288 × 216 pt (4 × 3 in).
 */
export async function imagePdf(options: ImagePdfOptions = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const [jw, jh] = options.jpegSize ?? [2400, 1800];
  const jpeg = await (await photo(jw, jh)).jpeg({ quality: 95 }).toBuffer();
  const first = doc.addPage([288, 216]);
  first.drawImage(await doc.embedJpg(jpeg), { x: 0, y: 0, width: 288, height: 216 });

  const [fw, fh] = options.flateSize ?? [1600, 1200];
  const pixels = await (await photo(fw, fh)).raw().toBuffer();
  const flateRef = doc.context.register(
    doc.context.stream(deflateSync(pixels), {
      Type: 'XObject',
      Subtype: 'Image',
      Width: fw,
      Height: fh,
      BitsPerComponent: 8,
      ColorSpace: 'DeviceRGB',
      Filter: 'FlateDecode',
    }),
  );
  const second = doc.addPage([288, 216]);
  const name = second.node.newXObject('Im', flateRef);
  second.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(288, 0, 0, 216, 0, 0),
    drawObject(name),
    popGraphicsState(),
  );
  const third = doc.addPage([288, 216]);
  third.drawText('Text survives compression', { x: 20, y: 100, size: 16, font, color: rgb(0, 0, 0) });
  return doc.save();
}

/** Marks a document encrypted with the standard handler (RC4 40-bit); no password opens it. */
export async function encryptedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await textPdf({ pages: 2 }));
  const filler = PDFString.of('0123456789abcdef0123456789abcdef');
  doc.context.trailerInfo.Encrypt = doc.context.register(
    doc.context.obj({ Filter: 'Standard', V: 1, R: 2, O: filler, U: filler, P: -44 }),
  );
  doc.context.trailerInfo.ID = doc.context.obj([
    PDFString.of('0123456789abcdef'),
    PDFString.of('0123456789abcdef'),
  ]);
  return doc.save({ useObjectStreams: false });
}

/** `pages` pages that share one content stream: a multi-hundred-page document made in milliseconds. */
export async function manyPagesPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const template = doc.addPage([200, 200]);
  template.drawText('Same page', { x: 20, y: 100, size: 12, font });
  const contents = template.node.get(PDFName.Contents);
  const resources = template.node.get(PDFName.Resources);
  for (let index = 1; index < pages; index += 1) {
    const page = doc.addPage([200, 200]);
    if (contents) page.node.set(PDFName.Contents, contents);
    if (resources) page.node.set(PDFName.Resources, resources);
  }
  return doc.save();
}

export interface Rendered {
  width: number;
  height: number;
  data: Uint8Array;
}

const pdfium = PDFiumLibrary.init();

/** Renders one page (0-based) with pdfium at `dpi`: RGBA pixels, the way /pdf-to-image sees it. */
export async function renderPage(bytes: Uint8Array, index: number, dpi = 72): Promise<Rendered> {
  const doc = await (await pdfium).loadDocument(bytes);
  try {
    return await doc.getPage(index).render({ scale: dpi / 72, render: 'bitmap' });
  } finally {
    doc.destroy();
  }
}

/** The text pdfium extracts from a page (0-based). */
export async function pageText(bytes: Uint8Array, index: number): Promise<string> {
  const doc = await (await pdfium).loadDocument(bytes);
  try {
    return doc.getPage(index).getText();
  } finally {
    doc.destroy();
  }
}

/** The RGB colour at a point given as fractions of the width and height (0,0 = top left). */
export function colourAt(image: Rendered, fx: number, fy: number, channels = 4): [number, number, number] {
  const x = Math.min(image.width - 1, Math.floor(image.width * fx));
  const y = Math.min(image.height - 1, Math.floor(image.height * fy));
  const at = (y * image.width + x) * channels;
  return [image.data[at]!, image.data[at + 1]!, image.data[at + 2]!];
}

/** Whether two colours are within `tolerance` on every channel. */
export const near = (a: readonly number[], b: readonly number[], tolerance = 12): boolean =>
  a.length === b.length && a.every((value, index) => Math.abs(value - b[index]!) <= tolerance);

/** Decodes an image file with sharp into the same shape as a rendered page. */
export async function decodeImage(bytes: Uint8Array): Promise<Rendered & { format: string | undefined }> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { format } = await sharp(bytes).metadata();
  return { width: info.width, height: info.height, data, format };
}

/** The entries of a ZIP answer, in archive order. */
export function zipEntries(bytes: Uint8Array): Array<[string, Uint8Array]> {
  return Object.entries(unzipSync(bytes));
}
