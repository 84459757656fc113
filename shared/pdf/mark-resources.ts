import {
  beginText,
  concatTransformationMatrix,
  endText,
  type PDFContext,
  type PDFDict,
  type PDFDocument,
  type PDFFont,
  PDFName,
  type PDFOperator,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
  setFontAndSize,
  showText,
} from 'pdf-lib';
import type { TextRun } from '#shared/pdf/fonts.ts';
import type { Matrix } from '#shared/pdf/stamp.ts';

/**
 * The resources every mark form of one document draws with: one dictionary, shared by the forms,
 * naming the fonts, the opacity states and the images they use.
 */
export class MarkResources {
  readonly ref: PDFRef;
  readonly #context: PDFContext;
  readonly #fonts: PDFDict;
  readonly #states: PDFDict;
  readonly #images: PDFDict;
  readonly #names = new Map<PDFRef, string>();

  constructor(doc: PDFDocument) {
    this.#context = doc.context;
    this.#fonts = this.#context.obj({});
    this.#states = this.#context.obj({});
    this.#images = this.#context.obj({});
    this.ref = this.#context.register(
      this.#context.obj({ Font: this.#fonts, ExtGState: this.#states, XObject: this.#images }),
    );
  }

  #name(dict: PDFDict, prefix: string, ref: PDFRef): string {
    let name = this.#names.get(ref);
    if (!name) {
      name = `${prefix}${dict.keys().length}`;
      dict.set(PDFName.of(name), ref);
      this.#names.set(ref, name);
    }
    return name;
  }

  font(font: PDFFont): string {
    return this.#name(this.#fonts, 'F', font.ref);
  }

  /** A graphics state that paints (fills and strokes) with this opacity. */
  opacity(opacity: number): string {
    const key = PDFName.of(`G${Math.round(opacity * 1000)}`);
    if (!this.#states.has(key)) {
      this.#states.set(
        key,
        this.#context.register(this.#context.obj({ Type: 'ExtGState', ca: opacity, CA: opacity })),
      );
    }
    return key.decodeText();
  }

  image(ref: PDFRef): string {
    return this.#name(this.#images, 'I', ref);
  }
}

/**
 * Operators that show `runs` at `size` with the text's origin (start of the baseline) at `at`.
 * Each run is shown in its own font; the text position moves on by the widths of what was shown.
 */
export function textOperators(
  resources: MarkResources,
  runs: readonly TextRun[],
  size: number,
  at: Matrix,
): PDFOperator[] {
  const shown = runs.flatMap((run) => [
    setFontAndSize(resources.font(run.font), size),
    showText(run.font.encodeText(run.text)),
  ]);
  return [
    pushGraphicsState(),
    concatTransformationMatrix(...at),
    beginText(),
    ...shown,
    endText(),
    popGraphicsState(),
  ];
}
