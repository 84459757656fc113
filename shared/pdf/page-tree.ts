import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFPageLeaf,
  PDFPageTree,
  PDFRef,
} from 'pdf-lib';
import { HttpError } from '#shared/http/errors.ts';
import { pdfLimits } from '#shared/pdf/limits.ts';

const damaged = (detail: string) =>
  new HttpError('invalid_source_file', `The PDF could not be read: its page tree ${detail}`);

/** US Letter: what viewers assume for a page that states no size. */
const defaultMediaBox = [0, 0, 612, 792];

const pagesKey = PDFName.of('Pages');
const kidsKey = PDFName.of('Kids');
const countKey = PDFName.of('Count');

interface Frame {
  node: PDFPageTree;
  ref: PDFRef;
  kids: PDFArray;
  next: number;
  leavesBefore: number;
}

/**
 * Walks the page tree once, without recursion, before pdf-lib is let near it. pdf-lib's own walks
 * recurse into every kid and climb `Parent` links without a guard, so a cycle, a node shared by two
 * parents (which multiplies the pages exponentially) or a deep chain would hang or crash it. Here
 * every node may be met once; `Parent` and `Count` are set to what the tree really is, and a page
 * that states no MediaBox gets US Letter, as viewers assume. Returns the number of pages.
 */
export function checkPageTree(context: PDFContext, maxPages: number | undefined): number {
  const catalog = context.lookup(context.trailerInfo.Root);
  if (!(catalog instanceof PDFDict)) throw damaged('has no root (the document catalog is missing).');
  const rootRef = catalog.get(pagesKey);
  const root = rootRef instanceof PDFRef ? context.lookup(rootRef) : undefined;
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFPageTree)) throw damaged('is missing.');
  root.delete(PDFName.Parent);

  const seen = new Set<PDFDict>([root]);
  const stack: Frame[] = [{ node: root, ref: rootRef, kids: kidsOf(root), next: 0, leavesBefore: 0 }];
  let leaves = 0;
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.next >= frame.kids.size()) {
      frame.node.set(countKey, PDFNumber.of(leaves - frame.leavesBefore));
      stack.pop();
      continue;
    }
    const kidRef = frame.kids.get(frame.next);
    frame.next += 1;
    const kid = kidRef instanceof PDFRef ? context.lookup(kidRef) : undefined;
    if (!(kidRef instanceof PDFRef) || !(kid instanceof PDFPageTree || kid instanceof PDFPageLeaf)) {
      throw damaged('holds an entry that is not a page.');
    }
    if (seen.has(kid)) throw damaged('reaches a page or node twice.');
    seen.add(kid);
    kid.set(PDFName.Parent, frame.ref);
    if (kid instanceof PDFPageLeaf) {
      leaves += 1;
      if (maxPages !== undefined && leaves > maxPages) {
        throw new HttpError(
          'invalid_source_file',
          `The PDF has more than ${maxPages} pages, the most this operation takes.`,
        );
      }
      checkMediaBox(context, kid, leaves);
    } else {
      if (stack.length >= pdfLimits.maxPageTreeDepth) throw damaged('is nested too deeply.');
      stack.push({ node: kid, ref: kidRef, kids: kidsOf(kid), next: 0, leavesBefore: leaves });
    }
  }
  if (leaves === 0) throw damaged('holds no pages.');
  return leaves;
}

function kidsOf(node: PDFPageTree): PDFArray {
  const kids = node.context.lookup(node.get(kidsKey));
  if (!(kids instanceof PDFArray)) throw damaged('holds a node without its list of kids.');
  return kids;
}

/** The page's size must be four numbers with an area; an absent one means US Letter. */
function checkMediaBox(context: PDFContext, page: PDFPageLeaf, pageNumber: number): void {
  const box = context.lookup(page.getInheritableAttribute(PDFName.MediaBox));
  if (box === undefined) {
    page.set(PDFName.MediaBox, context.obj(defaultMediaBox));
    return;
  }
  const values =
    box instanceof PDFArray && box.size() === 4 ? box.asArray().map((v) => context.lookup(v)) : [];
  const numbers = values.map((value) => (value instanceof PDFNumber ? value.asNumber() : Number.NaN));
  const [x1, y1, x2, y2] = numbers;
  const valid =
    numbers.length === 4 &&
    numbers.every(Number.isFinite) &&
    Math.abs((x2 ?? 0) - (x1 ?? 0)) > 0 &&
    Math.abs((y2 ?? 0) - (y1 ?? 0)) > 0;
  if (!valid) {
    throw new HttpError(
      'invalid_source_file',
      `The PDF could not be read: page ${pageNumber} has no valid size (MediaBox).`,
    );
  }
}
