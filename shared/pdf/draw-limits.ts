/**
 * Options and bounds of the PDF routes that draw (watermarks, page numbers, forms), apart from the
 * work so that the route table can read them without loading an engine.
 */

export const watermarkPositions = [
  'center',
  'north',
  'northeast',
  'east',
  'southeast',
  'south',
  'southwest',
  'west',
  'northwest',
  'tile',
] as const;
export type WatermarkPosition = (typeof watermarkPositions)[number];

export const numberPositions = [
  'bottom-center',
  'bottom-left',
  'bottom-right',
  'top-left',
  'top-center',
  'top-right',
] as const;
export type NumberPosition = (typeof numberPositions)[number];

/** The image formats a watermark may be. */
export const watermarkImageFormats = ['png', 'jpg', 'webp', 'svg'] as const;

/**
 * The longest side a watermark image is stored at: about 400 dpi across half a large page. A
 * larger image is scaled down (an SVG is rendered at this size), so that what a page carries stays
 * bounded whatever the source holds.
 */
export const maxMarkSidePixels = 2400;

/** Copies of the mark a tiled page holds at most: past it the tiles are spread wider. */
export const maxTiles = 400;

export const formLimits = {
  /** Fields a form may have for it to be filled, flattened or listed in full. */
  maxFormFields: 5000,
  /** Fields one request may fill. */
  maxFilledFields: 1000,
  /** Characters of one value. */
  maxValueCharacters: 10_000,
  /** Annotations one page may have for it to be flattened. */
  maxPageAnnotations: 5000,
} as const;
