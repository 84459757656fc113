import {
  PDFArray,
  type PDFContext,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFOperator,
  type PDFPage,
  PDFRef,
  PDFStream,
} from 'pdf-lib';
import { visibleBox } from '#shared/pdf/page-box.ts';
import { rotationOf } from '#shared/pdf/rotate.ts';

/** a b c d e f of a PDF transformation matrix. */
export type Matrix = readonly [number, number, number, number, number, number];

/**
 * A page as a viewer shows it: the visible box (crop box within the media box) after the page's
 * rotation, with (0, 0) at its bottom left, and the matrix from those coordinates to the page's own.
 */
export interface PageFrame {
  width: number;
  height: number;
  toPage: Matrix;
}

export function frameOf(page: PDFPage): PageFrame {
  const [left, bottom, right, top] = visibleBox(page.doc.context, page.node);
  const width = right - left;
  const height = top - bottom;
  switch (rotationOf(page)) {
    case 90:
      return { width: height, height: width, toPage: [0, 1, -1, 0, left + width, bottom] };
    case 180:
      return { width, height, toPage: [-1, 0, 0, -1, left + width, bottom + height] };
    case 270:
      return { width: height, height: width, toPage: [0, -1, 1, 0, left, bottom + height] };
    default:
      return { width, height, toPage: [1, 0, 0, 1, left, bottom] };
  }
}

/** `m` then `n`: the matrix that applies m first (PDF row-vector order, m × n). */
export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

/** Rotation about the origin by `degrees` counter-clockwise. */
export function rotation(degrees: number): Matrix {
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  return [cos, sin, -sin, cos, 0, 0];
}

export const translation = (x: number, y: number): Matrix => [1, 0, 0, 1, x, y];
export const scaling = (x: number, y: number): Matrix => [x, 0, 0, y, 0, 0];

/** Numbers as a content stream writes them: at most 4 decimals, no exponent. */
const number = (value: number) => {
  const rounded = Math.round(value * 10_000) / 10_000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
};
export const matrixText = (m: Matrix) => m.map(number).join(' ');

/** The page's content streams as references (a single stream, an array, or none). */
function contentRefs(context: PDFContext, page: PDFPage): PDFRef[] {
  const contents = page.node.get(PDFName.Contents);
  const looked = context.lookup(contents);
  if (contents instanceof PDFRef && looked instanceof PDFStream) return [contents];
  if (looked instanceof PDFArray) {
    return looked.asArray().filter((item): item is PDFRef => item instanceof PDFRef);
  }
  if (looked instanceof PDFStream) return [context.register(looked)];
  return [];
}

/** A dictionary entry that is a dictionary, made (direct) when absent. */
function dictIn(context: PDFContext, holder: PDFDict, key: PDFName): PDFDict {
  const found = holder.lookup(key);
  if (found instanceof PDFDict) return found;
  const made = context.obj({});
  holder.set(key, made);
  return made;
}

/**
 * Places forms (Form XObjects) on pages, over or under what the pages draw. A page gets its form by a
 * name in its XObject resources and one small content stream; pages with the same form at the same
 * place share that stream. Drawing over, the page's own content is first closed in q … Q (two
 * streams shared by every page), so that a transformation it leaves behind cannot move the mark.
 */
export class PageStamper {
  readonly #context: PDFContext;
  #save: PDFRef | undefined;
  #restore: PDFRef | undefined;
  readonly #streams = new Map<string, PDFRef>();

  constructor(doc: PDFDocument) {
    this.#context = doc.context;
  }

  /** A new Form XObject of `width` × `height` drawing `operators` with `resources`. */
  form(operators: PDFOperator[], width: number, height: number, resources: PDFDict | PDFRef): PDFRef {
    const form = this.#context.formXObject(operators, { BBox: [0, 0, width, height], Resources: resources });
    return this.#context.register(form);
  }

  #wrapStreams(): [PDFRef, PDFRef] {
    this.#save ??= this.#context.register(this.#context.stream('q\n'));
    this.#restore ??= this.#context.register(this.#context.stream('\nQ\n'));
    return [this.#save, this.#restore];
  }

  /** A name for `form` in the page's XObject resources: its own, or the first free one. */
  #nameFor(page: PDFPage, form: PDFRef): string {
    const context = this.#context;
    let resources = context.lookup(page.node.get(PDFName.Resources));
    if (!(resources instanceof PDFDict)) {
      const inherited = context.lookup(page.node.getInheritableAttribute(PDFName.Resources));
      resources = inherited instanceof PDFDict ? inherited : context.obj({});
      if (!(inherited instanceof PDFDict)) page.node.set(PDFName.Resources, resources as PDFDict);
    }
    const xobjects = dictIn(context, resources as PDFDict, PDFName.XObject);
    for (let index = 0; ; index += 1) {
      const name = PDFName.of(`Stamp${index}`);
      const held = xobjects.get(name);
      if (held === undefined) xobjects.set(name, form);
      else if (held !== form) continue;
      return name.asString();
    }
  }

  /** Draws `form` on the page, its (0, 0) at `at` of the page as shown (see frameOf). */
  stamp(page: PDFPage, form: PDFRef, at: Matrix, layer: 'over' | 'under'): void {
    this.stampAll(page, [{ form, at }], layer);
  }

  /** Draws forms on the page in the order given, each at its matrix of the page's own space. */
  stampAll(page: PDFPage, draws: ReadonlyArray<{ form: PDFRef; at: Matrix }>, layer: 'over' | 'under'): void {
    if (draws.length === 0) return;
    const text = draws
      .map(({ form, at }) => `q ${matrixText(at)} cm ${this.#nameFor(page, form)} Do Q`)
      .join('\n');
    let stream = this.#streams.get(text);
    if (!stream) {
      stream = this.#context.register(this.#context.flateStream(text));
      this.#streams.set(text, stream);
    }
    const own = contentRefs(this.#context, page);
    let contents: PDFRef[];
    if (layer === 'under') contents = [stream, ...own];
    else if (own.length === 0) contents = [stream];
    else {
      const [save, restore] = this.#wrapStreams();
      contents = [save, ...own, restore, stream];
    }
    page.node.set(PDFName.Contents, this.#context.obj(contents));
  }
}
