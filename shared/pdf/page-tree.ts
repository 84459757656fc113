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
import { ApiError } from '#shared/errors.ts';
import { pdfLimits } from '#shared/pdf/limits.ts';
import { settleMediaBox } from '#shared/pdf/page-box.ts';

const damaged = (detail: string) =>
  new ApiError('invalid_source_file', `The PDF could not be read: its page tree ${detail}`);

const pagesKey = PDFName.of('Pages');
const kidsKey = PDFName.of('Kids');
const countKey = PDFName.of('Count');

/**
 * A page-tree node as viewers tell it, whatever its /Type says or lacks: a dictionary with /Kids is
 * an intermediate node, any other dictionary a page. pdf-lib types nodes by /Type alone, so an
 * untyped node is rebuilt as the structure pdf-lib expects, its /Type written.
 */
function nodeAt(context: PDFContext, ref: unknown, repairs: string[]): PDFPageTree | PDFPageLeaf | undefined {
  if (!(ref instanceof PDFRef)) return undefined;
  const node = context.lookup(ref);
  if (node instanceof PDFPageTree || node instanceof PDFPageLeaf) return node;
  // A dictionary of another /Type (a font, the catalog) is no page, whatever it holds.
  if (!(node instanceof PDFDict) || node.has(PDFName.Type)) return undefined;
  const entries = new Map(node.entries());
  const isTree = context.lookup(node.get(kidsKey)) instanceof PDFArray;
  entries.set(PDFName.Type, PDFName.of(isTree ? 'Pages' : 'Page'));
  const typed = isTree
    ? PDFPageTree.fromMapWithContext(entries, context)
    : PDFPageLeaf.fromMapWithContext(entries, context);
  context.assign(ref, typed);
  repairs.push(`a page-tree node without /Type read as ${isTree ? '/Pages' : '/Page'}`);
  return typed;
}

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
 * every node is met once: as viewers do, an entry met again, or one that is no page or node, is
 * left out of its /Kids. `Parent` and `Count` are set to what the tree really is, and a page whose
 * MediaBox is absent, reversed or broken gets the one viewers settle on (`settleMediaBox`). Nodes
 * without /Type are typed by what they hold. What was repaired is added to `repairs`. Returns the
 * number of pages.
 */
export function checkPageTree(
  context: PDFContext,
  maxPages: number | undefined,
  repairs: string[] = [],
): number {
  const catalog = context.lookup(context.trailerInfo.Root);
  if (!(catalog instanceof PDFDict)) throw damaged('has no root (the document catalog is missing).');
  const rootRef = catalog.get(pagesKey);
  const root = nodeAt(context, rootRef, repairs);
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
    const kid = nodeAt(context, kidRef, repairs);
    if (!(kidRef instanceof PDFRef) || kid === undefined || seen.has(kid)) {
      frame.next -= 1;
      frame.kids.remove(frame.next);
      repairs.push(
        kid === undefined ? 'an entry that is no page left out' : 'a page or node met twice left out',
      );
      continue;
    }
    seen.add(kid);
    kid.set(PDFName.Parent, frame.ref);
    if (kid instanceof PDFPageLeaf) {
      leaves += 1;
      if (maxPages !== undefined && leaves > maxPages) {
        throw new ApiError(
          'invalid_source_file',
          `The PDF has more than ${maxPages} pages, the most this operation takes.`,
        );
      }
      if (settleMediaBox(context, kid)) repairs.push(`page ${leaves} given a usable MediaBox`);
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
