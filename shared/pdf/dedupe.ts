import { createHash } from 'node:crypto';
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFObject,
  PDFRef,
  PDFStream,
} from 'pdf-lib';

/**
 * Objects whose identity means something beyond their content: two equal pages, annotations or
 * optional content groups are still two of them. They are never merged, and the search for
 * shareable objects does not pass through them.
 */
const identityTypes = new Set(
  ['Catalog', 'Pages', 'Page', 'Annot', 'OCG', 'OCMD', 'Outlines', 'StructTreeRoot', 'StructElem', 'Sig'].map(
    (name) => PDFName.of(name),
  ),
);
const names = {
  type: PDFName.of('Type'),
  length: PDFName.of('Length'),
  resources: PDFName.of('Resources'),
  contents: PDFName.of('Contents'),
  appearance: PDFName.of('AP'),
};

const dictOf = (object: PDFObject | undefined) =>
  object instanceof PDFStream ? object.dict : object instanceof PDFDict ? object : undefined;

function hasIdentity(object: PDFObject | undefined): boolean {
  const type = dictOf(object)?.get(names.type);
  return type instanceof PDFName && identityTypes.has(type);
}

/**
 * A canonical text of a direct object, its references written as `@`, and the references in the
 * order they appear. Dictionary keys are sorted, so that key order makes no difference; a
 * stream's Length is left out (it is rewritten on save) and its bytes stand as their SHA-256.
 */
function shapeOf(object: PDFObject): { shape: string; refs: PDFRef[] } {
  const refs: PDFRef[] = [];
  const write = (value: PDFObject): string => {
    if (value instanceof PDFRef) {
      refs.push(value);
      return '@';
    }
    if (value instanceof PDFArray) return `[${value.asArray().map(write).join(' ')}]`;
    if (value instanceof PDFDict) {
      const entries = value
        .entries()
        .filter(([key]) => !(value === dictOf(object) && object instanceof PDFStream && key === names.length))
        .sort(([a], [b]) => (a.asString() < b.asString() ? -1 : 1));
      return `<<${entries.map(([key, entry]) => `${key.asString()} ${write(entry)}`).join(' ')}>>`;
    }
    return value.toString();
  };
  if (object instanceof PDFStream) {
    const digest = createHash('sha256').update(object.getContents()).digest('base64');
    return { shape: `stream ${write(object.dict)} ${digest}`, refs };
  }
  return { shape: write(object), refs };
}

/**
 * The objects pages draw with: everything reachable from each page's resources and content
 * streams and from its annotations' appearance streams, without passing through an object whose
 * identity matters. These may be shared by any number of pages.
 */
function drawingObjects(doc: PDFDocument): Set<PDFRef> {
  const { context } = doc;
  const pending: PDFObject[] = [];
  for (const page of doc.getPages()) {
    const resources = page.node.getInheritableAttribute(names.resources);
    const contents = page.node.get(names.contents);
    if (resources) pending.push(resources);
    if (contents) pending.push(contents);
    for (const annotation of page.node.Annots()?.asArray() ?? []) {
      const appearance = dictOf(context.lookup(annotation))?.get(names.appearance);
      if (appearance) pending.push(appearance);
    }
  }
  const found = new Set<PDFRef>();
  while (pending.length > 0) {
    const object = pending.pop();
    if (object instanceof PDFRef) {
      if (found.has(object)) continue;
      const target = context.lookup(object);
      if (target === undefined || hasIdentity(target)) continue;
      found.add(object);
      pending.push(target);
    } else if (object instanceof PDFArray) {
      pending.push(...object.asArray());
    } else if (object instanceof PDFDict) {
      if (!hasIdentity(object)) pending.push(...object.entries().map(([, value]) => value));
    } else if (object instanceof PDFStream) {
      pending.push(object.dict);
    }
  }
  return found;
}

interface Node {
  ref: PDFRef;
  shape: string;
  /** The candidates among the references, as indexes into the node list. */
  children: number[];
  refs: PDFRef[];
}

/**
 * The strongly connected components of the candidates' reference graph, children before parents
 * (Tarjan's algorithm, without recursion: a chain of forms can be as long as the file allows).
 */
function componentsOf(nodes: readonly Node[]): number[][] {
  const index = new Array<number>(nodes.length).fill(-1);
  const low = new Array<number>(nodes.length).fill(0);
  const onStack = new Array<boolean>(nodes.length).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < nodes.length; root += 1) {
    if (index[root] !== -1) continue;
    const work: Array<[node: number, child: number]> = [[root, 0]];
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [node, child] = frame;
      if (child === 0) {
        index[node] = low[node] = counter++;
        stack.push(node);
        onStack[node] = true;
      }
      const children = nodes[node]!.children;
      if (child < children.length) {
        frame[1] += 1;
        const next = children[child]!;
        if (index[next] === -1) work.push([next, 0]);
        else if (onStack[next]) low[node] = Math.min(low[node]!, index[next]!);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1]?.[0];
      if (parent !== undefined) low[parent] = Math.min(low[parent]!, low[node]!);
      if (low[node] !== index[node]) continue;
      const component: number[] = [];
      let member: number;
      do {
        member = stack.pop()!;
        onStack[member] = false;
        component.push(member);
      } while (member !== node);
      components.push(component);
    }
  }
  return components;
}

/**
 * Groups the objects that are interchangeable: equal content, and references to interchangeable
 * objects, followed to any depth. Labels are given bottom up, each object's from its content and
 * its children's labels, in one pass. Objects on a reference cycle keep their identity (they are
 * rare among drawing objects, and comparing cycles would cost more than they save).
 */
function equalGroups(context: PDFContext, candidates: Set<PDFRef>): PDFRef[][] {
  const refs = [...candidates];
  const position = new Map(refs.map((ref, at) => [ref, at]));
  const nodes: Node[] = refs.map((ref) => {
    const shape = shapeOf(context.lookup(ref) as PDFObject);
    const children = shape.refs.flatMap((child) => {
      const at = position.get(child);
      return at === undefined ? [] : [at];
    });
    return { ref, shape: shape.shape, refs: shape.refs, children };
  });
  const intern = new Map<string, number>();
  const idOf = (text: string) => {
    let id = intern.get(text);
    if (id === undefined) {
      id = intern.size;
      intern.set(text, id);
    }
    return id;
  };
  const label = new Array<number>(nodes.length);
  // An object outside the candidates is known by its reference alone.
  const labelOf = (ref: PDFRef) => {
    const at = position.get(ref);
    return at === undefined ? idOf(`ref ${ref.toString()}`) : label[at]!;
  };
  for (const component of componentsOf(nodes)) {
    const [only] = component;
    const cyclic = component.length > 1 || nodes[only!]!.children.includes(only!);
    for (const at of component) {
      const node = nodes[at]!;
      label[at] = cyclic
        ? idOf(`cycle ${node.ref.toString()}`)
        : idOf(`${node.shape}|${node.refs.map(labelOf).join(',')}`);
    }
  }
  const byLabel = new Map<number, PDFRef[]>();
  for (const [at, node] of nodes.entries()) {
    const group = byLabel.get(label[at]!);
    if (group) group.push(node.ref);
    else byLabel.set(label[at]!, [node.ref]);
  }
  return [...byLabel.values()].filter((group) => group.length > 1);
}

/** Points every reference held in `object` (directly or in nested dictionaries and arrays) at its replacement. */
function redirect(object: PDFObject, replacement: Map<PDFRef, PDFRef>): void {
  if (object instanceof PDFStream) {
    redirect(object.dict, replacement);
  } else if (object instanceof PDFDict) {
    for (const [key, value] of object.entries()) {
      const target = value instanceof PDFRef ? replacement.get(value) : undefined;
      if (target) object.set(key, target);
      else redirect(value, replacement);
    }
  } else if (object instanceof PDFArray) {
    for (const [index, value] of object.asArray().entries()) {
      const target = value instanceof PDFRef ? replacement.get(value) : undefined;
      if (target) object.set(index, target);
      else redirect(value, replacement);
    }
  }
}

/**
 * Stores identical drawing objects once (images, fonts, form XObjects, content streams and the
 * like that several pages or several merged sources carry in equal copies): every reference to a
 * copy is pointed at one of them and the others are deleted. Pages, annotations and other objects
 * whose identity matters stay as they are. Returns how many objects were removed.
 */
export function storeIdenticalOnce(doc: PDFDocument): number {
  const { context } = doc;
  const groups = equalGroups(context, drawingObjects(doc));
  if (groups.length === 0) return 0;
  const replacement = new Map<PDFRef, PDFRef>();
  for (const group of groups) {
    const [kept, ...copies] = group.sort((a, b) => a.objectNumber - b.objectNumber);
    for (const copy of copies) replacement.set(copy, kept!);
  }
  for (const [, object] of context.enumerateIndirectObjects()) redirect(object, replacement);
  for (const copy of replacement.keys()) context.delete(copy);
  return replacement.size;
}
