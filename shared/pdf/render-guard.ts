import { constants, inflateSync } from 'node:zlib';
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  type PDFObject,
  type PDFPageLeaf,
  PDFRawStream,
  type PDFRef,
} from 'pdf-lib';
import { maxFormDraws, pdfLimits } from '#shared/pdf/limits.ts';

/*
 * pdfium is handed only what it can render in bounded time and memory. It follows form XObjects
 * to a fixed nesting depth, so a form that draws itself twice is drawn 2^depth times and the page
 * never finishes; and it decodes a JPEG 2000 image at the size its codestream states, whatever the
 * image dictionary says. Both are found here with pdf-lib, before pdfium sees the file.
 */

const key = (name: string) => PDFName.of(name);
const formSubtype = key('Form');
const imageSubtype = key('Image');
const jpx = key('JPXDecode');

/** How deep form XObjects may nest (pdfium stops drawing deeper anyway). */
const maxFormDepth = 32;
/** Decoded content read per stream to count its `Do` operators; past it each name counts once. */
const maxContentBytes = 16 * 1024 * 1024;

export interface RenderHazards {
  /** What was changed, for the log. */
  changes: string[];
  /** Pages (1-based) that would draw more forms than `maxFormDraws` even without cycles. */
  overdrawnPages: number[];
}

/**
 * How often a content stream uses each resource name: keyed `Do:/Name` for a form or image it
 * draws, `scn:/Name` for a pattern it fills or strokes with. Undefined when unreadable.
 */
function drawnNames(context: PDFContext, contents: PDFObject | undefined): Map<string, number> | undefined {
  const resolved = context.lookup(contents);
  const streams =
    resolved instanceof PDFArray ? resolved.asArray().map((s) => context.lookup(s)) : [resolved];
  const counts = new Map<string, number>();
  for (const stream of streams) {
    if (stream === undefined) continue;
    if (!(stream instanceof PDFRawStream)) return undefined;
    const text = decodedText(stream);
    if (text === undefined) return undefined;
    for (const match of text.matchAll(/\/([^\s/[\]()<>{}%]+)\s*(Do|scn|SCN)(?![^\s/[\]()<>{}%])/g)) {
      const use = `${match[2] === 'Do' ? 'Do' : 'scn'}:${key(match[1]!).asString()}`;
      counts.set(use, (counts.get(use) ?? 0) + 1);
    }
  }
  return counts;
}

function decodedText(stream: PDFRawStream): string | undefined {
  const filter = stream.dict.lookup(key('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray() : filter === undefined ? [] : [filter];
  if (filters.length === 0) return Buffer.from(stream.contents).toString('latin1');
  if (filters.length > 1 || filters[0] !== PDFName.FlateDecode) return undefined;
  try {
    return inflateSync(stream.contents, {
      maxOutputLength: maxContentBytes,
      finishFlush: constants.Z_SYNC_FLUSH,
    }).toString('latin1');
  } catch {
    return undefined;
  }
}

const isForm = (object: unknown): object is PDFRawStream =>
  object instanceof PDFRawStream && object.dict.get(key('Subtype')) === formSubtype;

/** A tiling pattern: a content stream with resources of its own, drawn as the fill of a shape. */
const isTilingPattern = (object: unknown): object is PDFRawStream => {
  if (!(object instanceof PDFRawStream)) return false;
  const type = object.dict.get(key('PatternType'));
  return type instanceof PDFNumber && type.asNumber() === 1;
};

/**
 * The resource categories whose entries draw content streams of their own: form XObjects (drawn by
 * `Do`) and tiling patterns (filled or stroked with after `scn`/`SCN`; pdfium renders the cell
 * anew for each use, so nested patterns multiply as nested forms do). A loop through either never
 * ends in pdfium.
 */
const drawers = [
  { category: key('XObject'), draws: isForm, operator: 'Do' },
  { category: key('Pattern'), draws: isTilingPattern, operator: 'scn' },
] as const;

class FormWalk {
  readonly #context: PDFContext;
  readonly #draws = new Map<PDFRawStream, number>();
  readonly #onPath = new Set<PDFRawStream>();
  #steps = 0;
  readonly changes: string[] = [];

  constructor(context: PDFContext) {
    this.#context = context;
  }

  /** Forms drawn by content with these resources, nested draws multiplied out; cycles are cut. */
  draws(
    owner: PDFDict,
    contents: PDFObject | undefined,
    resources: PDFDict | undefined,
    depth: number,
  ): number {
    if (resources === undefined) return 0;
    let drawn: Map<string, number> | undefined | null = null;
    let total = 0;
    for (const drawer of drawers) {
      const entries = resources.lookup(drawer.category);
      if (!(entries instanceof PDFDict)) continue;
      for (const [name, value] of entries.entries()) {
        const form = this.#context.lookup(value);
        if (!drawer.draws(form)) continue;
        if (this.#onPath.has(form) || depth >= maxFormDepth) {
          this.#cut(owner, resources, drawer.category, name);
          continue;
        }
        if (drawn === null) drawn = drawnNames(this.#context, contents);
        const times = drawn ? (drawn.get(`${drawer.operator}:${name.asString()}`) ?? 0) : 1;
        total += times * this.#formDraws(form, resources, depth + 1);
        if (total > maxFormDraws) return total;
      }
    }
    return total;
  }

  #formDraws(form: PDFRawStream, inherited: PDFDict | undefined, depth: number): number {
    const own = form.dict.lookup(key('Resources'));
    const known = own instanceof PDFDict ? this.#draws.get(form) : undefined;
    if (known !== undefined) return known;
    // Forms that share their drawer's resources are not remembered; the walk itself is bounded.
    this.#steps += 1;
    if (this.#steps > maxFormDraws * 10) return maxFormDraws + 1;
    this.#onPath.add(form);
    // A form without resources of its own draws with those of what draws it (PDF 1.1 files).
    const resources = own instanceof PDFDict ? own : inherited;
    const total = 1 + this.draws(form.dict, form, resources, depth);
    this.#onPath.delete(form);
    if (own instanceof PDFDict) this.#draws.set(form, total);
    return total;
  }

  /**
   * Leaves `name` out of what `owner` draws with, in a copy of its resources so that nothing else
   * sharing them loses it: pdfium then skips that `Do`, as poppler skips a form it meets again.
   */
  #cut(owner: PDFDict, resources: PDFDict, category: PDFName, name: PDFName): void {
    const copy = resources.clone(this.#context);
    const entries = resources.lookup(category, PDFDict).clone(this.#context);
    entries.delete(name);
    copy.set(category, entries);
    owner.set(key('Resources'), copy);
    this.changes.push(
      `${category === key('Pattern') ? 'pattern' : 'form XObject'} cycle through ${name.asString()} cut`,
    );
  }
}

/** Width × height × components a JPEG 2000 codestream's SIZ marker states, if it can be found. */
export function jpxDeclaredPixels(data: Uint8Array): number | undefined {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const siz = bytes.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51]));
  if (siz < 0 || siz + 42 > bytes.length) return undefined;
  const at = siz + 4;
  const width = bytes.readUInt32BE(at + 4) - bytes.readUInt32BE(at + 12);
  const height = bytes.readUInt32BE(at + 8) - bytes.readUInt32BE(at + 16);
  return width > 0 && height > 0 ? width * height : undefined;
}

const isJpx = (stream: PDFRawStream) => {
  const filter = stream.dict.lookup(key('Filter'));
  const last = filter instanceof PDFArray ? filter.get(filter.size() - 1) : filter;
  return stream.dict.get(key('Subtype')) === imageSubtype && last === jpx;
};

/**
 * Replaces JPEG 2000 images by an empty form (the page renders without them, as viewers render
 * without an image they cannot decode): those whose codestream states more pixels than images may
 * have, or cannot be read, or, with `all`, every one (after pdfium failed on one).
 */
export function dropJpxImages(context: PDFContext, all: boolean): string[] {
  const changes: string[] = [];
  const empty = () =>
    context.stream(new Uint8Array(0), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 1, 1] });
  for (const [ref, object] of context.enumerateIndirectObjects() as Array<[PDFRef, PDFObject]>) {
    if (!(object instanceof PDFRawStream) || !isJpx(object)) continue;
    const pixels = jpxDeclaredPixels(object.contents);
    if (!all && pixels !== undefined && pixels <= pdfLimits.maxImagePixels) continue;
    context.assign(ref, empty());
    changes.push(`JPEG 2000 image ${ref.toString()} left out`);
  }
  return changes;
}

/**
 * Makes the document safe for pdfium to lay out and render: form XObject cycles are cut (from page
 * content and annotation appearances), JPEG 2000 images too large or unreadable to decode are left
 * out (unless `keepImages`), and pages that would still draw too many forms are reported.
 */
export function guardRendering(
  context: PDFContext,
  pages: readonly PDFPageLeaf[],
  options: { keepImages?: boolean } = {},
): RenderHazards {
  const walk = new FormWalk(context);
  const overdrawnPages: number[] = [];
  for (const [index, page] of pages.entries()) {
    const resources = context.lookup(page.getInheritableAttribute(key('Resources')));
    const pageResources = resources instanceof PDFDict ? resources : undefined;
    let draws = walk.draws(page, page.get(PDFName.Contents), pageResources, 0);
    const annots = context.lookup(page.get(key('Annots')));
    for (const annot of annots instanceof PDFArray ? annots.asArray() : []) {
      for (const appearance of appearancesOf(context, annot)) {
        const holder = context.obj({ XObject: { AP: appearance } });
        draws += walk.draws(context.obj({}), undefined, holder, 0);
      }
    }
    if (draws > maxFormDraws) overdrawnPages.push(index + 1);
  }
  const changes = [...walk.changes, ...(options.keepImages ? [] : dropJpxImages(context, false))];
  return { changes, overdrawnPages };
}

/** The normal, rollover and down appearance streams of an annotation (refs), each state's too. */
function appearancesOf(context: PDFContext, annot: PDFObject): PDFObject[] {
  const dict = context.lookup(annot);
  const ap = dict instanceof PDFDict ? dict.lookup(key('AP')) : undefined;
  if (!(ap instanceof PDFDict)) return [];
  const found: PDFObject[] = [];
  for (const [, entry] of ap.entries()) {
    const value = context.lookup(entry);
    if (value instanceof PDFRawStream) found.push(entry);
    else if (value instanceof PDFDict) for (const [, state] of value.entries()) found.push(state);
  }
  return found;
}
