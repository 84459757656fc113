import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  type PDFObject,
  type PDFPageLeaf,
} from 'pdf-lib';

/** A page box as left, bottom, right, top, with left < right and bottom < top. */
export type Box = readonly [number, number, number, number];

/** US Letter: what viewers assume for a page that states no usable size. */
export const letterBox: Box = [0, 0, 612, 792];

const cropBoxKey = PDFName.of('CropBox');

/**
 * A box entry as viewers read it: four finite numbers with an area, corners in either order
 * (reversed corners are normalised). Undefined for anything else.
 */
export function readBox(context: PDFContext, value: PDFObject | undefined): Box | undefined {
  const box = context.lookup(value);
  if (!(box instanceof PDFArray) || box.size() !== 4) return undefined;
  const numbers = box.asArray().map((entry) => {
    const number = context.lookup(entry);
    return number instanceof PDFNumber ? number.asNumber() : Number.NaN;
  });
  if (!numbers.every(Number.isFinite)) return undefined;
  const [x1, y1, x2, y2] = numbers as [number, number, number, number];
  const box4: Box = [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
  return box4[2] > box4[0] && box4[3] > box4[1] ? box4 : undefined;
}

const sameBox = (context: PDFContext, value: PDFObject | undefined, box: Box) => {
  const array = context.lookup(value);
  return (
    array instanceof PDFArray &&
    array.size() === 4 &&
    array.asArray().every((entry, at) => {
      const number = context.lookup(entry);
      return number instanceof PDFNumber && number.asNumber() === box[at];
    })
  );
};

/** The first usable MediaBox up the page's ancestors (its parent first), if any. */
function ancestorMediaBox(context: PDFContext, page: PDFPageLeaf): Box | undefined {
  const seen = new Set<PDFDict>([page]);
  let node = context.lookup(page.get(PDFName.Parent));
  while (node instanceof PDFDict && !seen.has(node)) {
    seen.add(node);
    const box = readBox(context, node.get(PDFName.MediaBox));
    if (box) return box;
    node = context.lookup(node.get(PDFName.Parent));
  }
  return undefined;
}

/**
 * Gives the page a MediaBox every engine reads the same way, as viewers settle it: the one it has
 * or inherits, corners normalised; when that is absent or broken, its CropBox, else a usable box of
 * an ancestor, else US Letter. The page's own entry is written only when it changes something;
 * answers whether it was.
 */
export function settleMediaBox(context: PDFContext, page: PDFPageLeaf): boolean {
  const stated = page.getInheritableAttribute(PDFName.MediaBox);
  const box =
    readBox(context, stated) ??
    readBox(context, page.getInheritableAttribute(cropBoxKey)) ??
    ancestorMediaBox(context, page) ??
    letterBox;
  if (sameBox(context, stated, box)) return false;
  page.set(PDFName.MediaBox, context.obj([...box]));
  return true;
}

/**
 * The part of the page a viewer shows: the CropBox clipped to the MediaBox, as the PDF
 * specification has it (a CropBox that is broken or misses the MediaBox counts as absent).
 */
export function visibleBox(context: PDFContext, page: PDFPageLeaf): Box {
  const media = readBox(context, page.getInheritableAttribute(PDFName.MediaBox)) ?? letterBox;
  const crop = readBox(context, page.getInheritableAttribute(cropBoxKey));
  if (!crop) return media;
  const clipped: Box = [
    Math.max(crop[0], media[0]),
    Math.max(crop[1], media[1]),
    Math.min(crop[2], media[2]),
    Math.min(crop[3], media[3]),
  ];
  return clipped[2] > clipped[0] && clipped[3] > clipped[1] ? clipped : media;
}
