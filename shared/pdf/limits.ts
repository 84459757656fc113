/**
 * Bounds that keep one request's PDF work finite in time and memory, whatever the file holds.
 * pdf-lib parses everything into memory and decodes object streams whole, so its input is
 * measured before it is trusted.
 */
export interface PdfLimits {
  maxPages: number;
  maxParsedObjects: number;
  maxDecodedStreamBytes: number;
  maxDecodedTotalBytes: number;
  parseBaseMs: number;
  parseMsPerMegabyte: number;
  maxPageTreeDepth: number;
  maxRenderPixels: number;
  maxImagePixels: number;
  maxPageSidePoints: number;
}

export const pdfLimits: Readonly<PdfLimits> = {
  /** Pages a document may have for any operation that rewrites or renders it. */
  maxPages: 2000,
  /** Objects (dictionaries, arrays, numbers, names …) the parser may build for one file: ~1 GB of heap. */
  maxParsedObjects: 5_000_000,
  /** Decoded size of one object or cross-reference stream. */
  maxDecodedStreamBytes: 64 * 1024 * 1024,
  /** Decoded size of all object and cross-reference streams of one file together. */
  maxDecodedTotalBytes: 256 * 1024 * 1024,
  /** Parsing time: a fixed allowance plus a share per megabyte of source. */
  parseBaseMs: 5_000,
  parseMsPerMegabyte: 500,
  /** Depth of the page tree (real files rarely go past 5). */
  maxPageTreeDepth: 64,
  /** Pixels of one rendered page (about 160 MB of RGBA). */
  maxRenderPixels: 40_000_000,
  /** Pixels of one embedded image that compression will decode. */
  maxImagePixels: 100_000_000,
  /** The largest page side a PDF viewer is required to show, in points (200 inches). */
  maxPageSidePoints: 14_400,
};

/** Compression levels, and what each does to raster images; text, vector art and fonts are never touched. */
export const compressionLevels = ['low', 'medium', 'high'] as const;
export type CompressionLevel = (typeof compressionLevels)[number];

export const levelSettings: Record<CompressionLevel, { dpi: number; quality: number }> = {
  low: { dpi: 200, quality: 85 },
  medium: { dpi: 150, quality: 70 },
  high: { dpi: 100, quality: 60 },
};

/** The image formats pages are rendered to, and their content types. */
export const rasterFormats = ['png', 'jpg', 'webp'] as const;
export type RasterFormat = (typeof rasterFormats)[number];

export const rasterTypes: Record<RasterFormat, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
};

/** The page sizes images are placed on by /image-to-pdf (`fit`: each page the size of its image). */
export const pdfPageSizes = ['fit', 'a4', 'letter'] as const;

/** Page sizes /pdf-info lists (the first pages of a document). */
export const maxListedPageSizes = 100;

/**
 * Time pdfium may take to render one page (it renders on a thread of its own, ended at the limit):
 * a page a viewer shows takes well under a second, a heavy map or scan a few seconds, also with
 * four renders sharing two cores.
 */
export const renderPageLimitSeconds = 30;

/** Forms drawn on one page, nested draws multiplied out: past it the page is not rendered. */
export const maxFormDraws = 100_000;

/** Characters /pdf-to-text answers at most in one request (a few MB of JSON). */
export const maxTextCharacters = 1_000_000;

/** The quarter turns /pdf-rotate gives pages, clockwise. */
export const rotationAngles = [90, 180, 270] as const;
export type RotationAngle = (typeof rotationAngles)[number];

/** How page ranges are written, as the docs show it. */
export const rangeSyntax = '"1-3,5,7-"';

export const PDF_TYPE = 'application/pdf';
export const ZIP_TYPE = 'application/zip';
