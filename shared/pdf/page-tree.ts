import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  type PDFObject,
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

/** Pages listed more than once are kept at most this many times over, whatever /Count states. */
const maxRepeatedPages = 10_000;

type Node = PDFPageTree | PDFPageLeaf;

/**
 * How viewers (poppler, pdfium) tell a page-tree entry, whatever its /Type says: /Type /Page is a
 * page; any other dictionary with a /Kids array is a node; any other dictionary is a page. pdf-lib
 * types nodes by /Type alone, so an entry pdf-lib typed otherwise is rebuilt as what it is.
 */
function kindOf(context: PDFContext, dict: PDFDict): 'Pages' | 'Page' {
  if (dict instanceof PDFPageLeaf) return 'Page';
  return context.lookup(dict.get(kidsKey)) instanceof PDFArray ? 'Pages' : 'Page';
}

function rebuilt(context: PDFContext, dict: PDFDict, kind: 'Pages' | 'Page'): Node {
  const entries = new Map(dict.entries());
  entries.set(PDFName.Type, PDFName.of(kind));
  return kind === 'Pages'
    ? PDFPageTree.fromMapWithContext(entries, context)
    : PDFPageLeaf.fromMapWithContext(entries, context);
}

/** A copy of a page or node (a node's /Kids copied too), for an entry listed a second time. */
function copyOf(context: PDFContext, node: Node): Node {
  const entries = new Map(node.entries());
  const kids = context.lookup(node.get(kidsKey));
  if (kids instanceof PDFArray) entries.set(kidsKey, kids.clone(context));
  return node instanceof PDFPageTree
    ? PDFPageTree.fromMapWithContext(entries, context)
    : PDFPageLeaf.fromMapWithContext(entries, context);
}

/**
 * The entry of /Kids at `index` as a page or node, made an indirect object of the type it is: a
 * dictionary given directly in /Kids is registered; one without /Type is typed in place; one typed
 * as something else (a misspelt /Page, a /Pages without /Kids) is typed on a copy, so that nothing
 * else using the object sees the change. Undefined for what is no dictionary.
 */
function entryAt(
  context: PDFContext,
  kids: PDFArray,
  index: number,
  repairs: string[],
): { ref: PDFRef; node: Node } | undefined {
  const entry: PDFObject | undefined = kids.get(index);
  const dict = context.lookup(entry);
  if (!(dict instanceof PDFDict)) return undefined;
  const kind = kindOf(context, dict);
  const typed = dict instanceof (kind === 'Pages' ? PDFPageTree : PDFPageLeaf);
  if (entry instanceof PDFRef && typed) return { ref: entry, node: dict as Node };
  const node = typed ? (dict as Node) : rebuilt(context, dict, kind);
  let ref: PDFRef;
  if (entry instanceof PDFRef && !dict.has(PDFName.Type)) {
    ref = entry;
    context.assign(ref, node);
  } else {
    ref = context.register(node);
    kids.set(index, ref);
  }
  if (!(entry instanceof PDFRef)) repairs.push('a page-tree entry given directly in /Kids read as an object');
  if (!typed) repairs.push(`a page-tree entry read as /${kind} by what it holds`);
  return { ref, node };
}

interface Frame {
  node: PDFPageTree;
  ref: PDFRef;
  kids: PDFArray;
  next: number;
  leavesBefore: number;
}

/** The root node; a root that is a single page is put under a new node, as poppler recovers it. */
function rootOf(context: PDFContext, repairs: string[]): { ref: PDFRef; node: PDFPageTree } {
  const catalog = context.lookup(context.trailerInfo.Root);
  if (!(catalog instanceof PDFDict)) throw damaged('has no root (the document catalog is missing).');
  const stated = catalog.get(pagesKey);
  // Only a /Type /Page stands for a whole tree; a /Pages without /Kids is none, as for poppler.
  const singlePage = context.lookup(stated) instanceof PDFPageLeaf;
  const holder = context.obj([stated ?? null]);
  const root = entryAt(context, holder, 0, repairs);
  if (root?.node instanceof PDFPageTree) {
    catalog.set(pagesKey, root.ref);
    return { ref: root.ref, node: root.node };
  }
  if (!root || !singlePage) throw damaged('is missing.');
  const node = PDFPageTree.withContext(context);
  node.set(kidsKey, context.obj([root.ref]));
  const ref = context.register(node);
  catalog.set(pagesKey, ref);
  repairs.push('a single page given as the page tree put under a node');
  return { ref, node };
}

/** The root's /Count when it is a positive whole number: how many pages the file says it has. */
function declaredCount(node: PDFPageTree): number {
  const count = node.get(countKey);
  const value = count instanceof PDFNumber ? count.asNumber() : 0;
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * Walks the page tree once, without recursion, before pdf-lib is let near it. pdf-lib's own walks
 * recurse into every kid and climb `Parent` links without a guard, so a cycle or a deep chain would
 * hang or crash it. Pages are counted by following /Kids, as viewers follow them:
 * - an entry that leads back up the tree (a cycle) or is no dictionary is left out of its /Kids;
 * - a page or node listed a second time (the same page twice, a node under two parents) is shown
 *   again, as viewers show it, on a copy of its own, while the pages stay within the count the
 *   root states (and `maxRepeatedPages`); past it the repeat is left out, so that shared nodes
 *   cannot multiply pages without bound;
 * - entries are typed by what they hold (`entryAt`); a root that is a single page gets a node.
 * `Parent` and `Count` are set to what the tree really is, and a page whose MediaBox is absent,
 * reversed or broken gets the one viewers settle on (`settleMediaBox`). What was repaired is added
 * to `repairs`. Returns the number of pages.
 */
export function checkPageTree(
  context: PDFContext,
  maxPages: number | undefined,
  repairs: string[] = [],
): number {
  const root = rootOf(context, repairs);
  root.node.delete(PDFName.Parent);
  const repeatsUpTo = declaredCount(root.node);

  const seen = new Set<PDFDict>([root.node]);
  const onPath = new Set<PDFDict>([root.node]);
  const stack: Frame[] = [{ ...root, kids: kidsOf(root.node), next: 0, leavesBefore: 0 }];
  let leaves = 0;
  let repeats = 0;
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.next >= frame.kids.size()) {
      frame.node.set(countKey, PDFNumber.of(leaves - frame.leavesBefore));
      onPath.delete(frame.node);
      stack.pop();
      continue;
    }
    const index = frame.next;
    frame.next += 1;
    let kid = entryAt(context, frame.kids, index, repairs);
    if (kid !== undefined && seen.has(kid.node)) {
      const repeatable = !onPath.has(kid.node) && leaves < repeatsUpTo && repeats < maxRepeatedPages;
      if (repeatable) {
        const node = copyOf(context, kid.node);
        kid = { node, ref: context.register(node) };
        frame.kids.set(index, kid.ref);
        repeats += 1;
        repairs.push('a page or node listed twice shown again, on a copy');
      } else {
        kid = undefined;
        repairs.push('a page or node met twice left out');
      }
    } else if (kid === undefined) {
      repairs.push('an entry that is no page left out');
    }
    if (kid === undefined) {
      frame.next -= 1;
      frame.kids.remove(frame.next);
      continue;
    }
    seen.add(kid.node);
    kid.node.set(PDFName.Parent, frame.ref);
    if (kid.node instanceof PDFPageLeaf) {
      leaves += 1;
      if (maxPages !== undefined && leaves > maxPages) {
        throw new ApiError(
          'invalid_source_file',
          `The PDF has more than ${maxPages} pages, the most this operation takes.`,
        );
      }
      if (settleMediaBox(context, kid.node)) repairs.push(`page ${leaves} given a usable MediaBox`);
    } else {
      if (stack.length >= pdfLimits.maxPageTreeDepth) throw damaged('is nested too deeply.');
      onPath.add(kid.node);
      stack.push({ node: kid.node, ref: kid.ref, kids: kidsOf(kid.node), next: 0, leavesBefore: leaves });
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
