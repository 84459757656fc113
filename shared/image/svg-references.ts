import { HttpError } from '#shared/http/errors.ts';

/**
 * How many elements an SVG draws once every `<use>` is expanded. Ten levels of ten references to
 * the level below draw ten billion elements from a few kilobytes (the "billion laughs" of SVG), and
 * librsvg, which expands them while rendering, fails deep inside. The document's elements are
 * recorded as it is parsed (pre-order index, end of subtree, id, use target); the count then walks
 * the document as the renderer would, expanding references, and stops at the limit: its work never
 * exceeds the limit, whatever the document.
 */
export const maxDrawnElements = 500_000;

export class SvgReferences {
  /** For each element in document order: the index of its last descendant. */
  readonly #ends: number[] = [];
  /** For each element: the `#id` its `<use>` refers to, or undefined. */
  readonly #uses: (string | undefined)[] = [];
  readonly #ids = new Map<string, number>();
  readonly #open: number[] = [];

  /** Records an opening element; `use` is the fragment a `<use>` element refers to. */
  open(id: string | undefined, use: string | undefined): void {
    const index = this.#ends.length;
    this.#ends.push(index);
    this.#uses.push(use);
    if (id !== undefined && !this.#ids.has(id)) this.#ids.set(id, index);
    this.#open.push(index);
  }

  close(): void {
    const index = this.#open.pop();
    if (index !== undefined) this.#ends[index] = this.#ends.length - 1;
  }

  /** Refuses (400 invalid_source_file) a document that draws more than `maxDrawnElements`. */
  assertBounded(): void {
    let drawn = 0;
    // Ranges of element indexes still to walk; a <use> pushes the range of the element it refers to.
    const pending: [number, number][] = this.#ends.length > 0 ? [[0, this.#ends.length - 1]] : [];
    while (pending.length > 0) {
      const [from, to] = pending.pop()!;
      for (let index = from; index <= to; index += 1) {
        drawn += 1;
        if (drawn > maxDrawnElements) {
          throw new HttpError(
            'invalid_source_file',
            `The SVG draws more than ${maxDrawnElements} elements once its <use> references are expanded, the most accepted.`,
          );
        }
        const target = this.#uses[index];
        const start = target === undefined ? undefined : this.#ids.get(target);
        if (start !== undefined) pending.push([start, this.#ends[start]!]);
      }
    }
  }
}

/** The fragment a `<use>` refers to (`#id` in `href` or `xlink:href`), without its `#`. */
export function useTarget(reference: string | undefined): string | undefined {
  const value = reference?.trim();
  return value?.startsWith('#') ? value.slice(1) : undefined;
}
