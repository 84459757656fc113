import { ApiError } from '#shared/errors.ts';
import { maxDrawnElements, maxFilterWork } from '#shared/image/limits.ts';

/**
 * How many elements an SVG draws once every `<use>` is expanded, and how many filter primitives
 * it runs. Ten levels of ten references to
 * the level below draw ten billion elements from a few kilobytes (the "billion laughs" of SVG), and
 * librsvg, which expands them while rendering, fails deep inside. The document's elements are
 * recorded as it is parsed (pre-order index, end of subtree, id, use target); the count then walks
 * the document as the renderer would, expanding references, and stops at the limit: its work never
 * exceeds the limit, whatever the document.
 *
 * Filters: librsvg runs every primitive of an element's filter over the filter region, and libvips
 * asks it again for each strip of the canvas it renders; one Gaussian blur over 2000 × 2000 costs
 * seconds of CPU. The region is bounded by the canvas, so primitives run × canvas pixels bounds the
 * work. A filter that a style sheet applies (to elements no selector is resolved for here) counts as
 * applied to every element drawn.
 */
export class SvgReferences {
  /** For each element in document order: the index of its last descendant. */
  readonly #ends: Int32Array;
  #count = 0;
  /** The `#id` a `<use>` refers to, by element index. */
  readonly #uses = new Map<number, string>();
  /** The filter an element's attributes apply, by element index. */
  readonly #filters = new Map<number, string>();
  readonly #ids = new Map<string, number>();
  /** Indexes of the open elements, innermost last. */
  readonly #open: Int32Array;
  #depth = 0;
  /** Primitives of each `<filter>` by id. */
  readonly primitives = new Map<string, number>();
  /** Filters that a style sheet applies. */
  readonly styledFilters = new Set<string>();

  /** Room for the most elements and the deepest nesting the document may have (typed arrays: no per-element objects). */
  constructor(maxElements: number, maxDepth: number) {
    this.#ends = new Int32Array(maxElements + 1);
    this.#open = new Int32Array(maxDepth + 1);
  }

  /**
   * Records an opening element; `use` is the fragment a `<use>` element refers to, `filter` the
   * filter its attributes apply.
   */
  open(id: string | undefined, use: string | undefined, filter?: string): void {
    const index = this.#count;
    this.#count += 1;
    this.#ends[index] = index;
    if (use !== undefined) this.#uses.set(index, use);
    if (filter !== undefined) this.#filters.set(index, filter);
    if (id !== undefined && !this.#ids.has(id)) this.#ids.set(id, index);
    this.#open[this.#depth] = index;
    this.#depth += 1;
  }

  close(): void {
    if (this.#depth === 0) return;
    this.#depth -= 1;
    this.#ends[this.#open[this.#depth]!] = this.#count - 1;
  }

  /**
   * Refuses (400 invalid_source_file) a document that draws more than `maxDrawnElements`, and
   * answers how many filter primitives drawing it runs.
   */
  assertBounded(): number {
    // Without references or filters every element is drawn once, and the element limit holds.
    if (this.#uses.size === 0 && this.#filters.size === 0 && this.styledFilters.size === 0) return 0;
    let drawn = 0;
    let primitives = 0;
    const styled = [...this.styledFilters].reduce((sum, id) => sum + (this.primitives.get(id) ?? 0), 0);
    // Ranges of element indexes still to walk; a <use> pushes the range of the element it refers to.
    const pending: [number, number][] = this.#count > 0 ? [[0, this.#count - 1]] : [];
    while (pending.length > 0) {
      const [from, to] = pending.pop()!;
      for (let index = from; index <= to; index += 1) {
        drawn += 1;
        if (drawn > maxDrawnElements) {
          throw new ApiError(
            'invalid_source_file',
            `The SVG draws more than ${maxDrawnElements} elements once its <use> references are expanded, the most accepted.`,
          );
        }
        const filter = this.#filters.get(index);
        primitives += styled + (filter === undefined ? 0 : (this.primitives.get(filter) ?? 0));
        const target = this.#uses.get(index);
        const start = target === undefined ? undefined : this.#ids.get(target);
        if (start !== undefined) pending.push([start, this.#ends[start]!]);
      }
    }
    return primitives;
  }
}

/**
 * Refuses (400 invalid_source_file) an SVG whose filters would run over more than
 * `maxFilterWork` megapixels, once the canvas size it is rendered at is known.
 */
export function assertFilterWork(primitives: number, width: number, height: number): void {
  const work = (primitives * width * height) / 1e6;
  if (work > maxFilterWork) {
    throw new ApiError(
      'invalid_source_file',
      `The SVG runs ${primitives} filter primitives over a ${width} × ${height} canvas (${Math.round(work)} megapixels of filter work); at most ${maxFilterWork} are accepted. Render it smaller or with fewer filters.`,
    );
  }
}

/** The filter id of `url(#id)` in a `filter` property's value. */
export function filterTarget(value: string | undefined): string | undefined {
  return value === undefined ? undefined : /url\(\s*['"]?#([^'")\s]+)/i.exec(value)?.[1];
}

/** The fragment a `<use>` refers to (`#id` in `href` or `xlink:href`), without its `#`. */
export function useTarget(reference: string | undefined): string | undefined {
  const value = reference?.trim();
  return value?.startsWith('#') ? value.slice(1) : undefined;
}
