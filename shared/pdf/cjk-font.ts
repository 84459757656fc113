import type fontkit from '@pdf-lib/fontkit';
import {
  CustomFontEmbedder,
  type PDFContext,
  type PDFDocument,
  PDFFont,
  PDFHexString,
  type PDFRef,
} from 'pdf-lib';
import { subsetFace } from '#shared/pdf/font-subset.ts';

const hex4 = (value: number) => value.toString(16).padStart(4, '0');

/**
 * A face of Noto Sans CJK embedded as a CID font over its OpenType file, cut down by hb-subset to
 * the characters the document draws, glyph numbers kept (so codes are glyph numbers and, as the
 * font is CID-keyed with CID = GID, CIDs). pdf-lib's own CFF subsetter writes fonts that readers
 * refuse. Characters are shown unshaped, one glyph each, as CJK text is set.
 */
class CjkEmbedder {
  readonly fontName: string;
  readonly #face: fontkit.Font;
  readonly #file: Uint8Array;
  readonly #index: number;
  readonly #scale: number;
  /** Glyph number → the text it shows, for the ToUnicode map. */
  readonly #shown = new Map<number, string>();

  constructor(face: fontkit.Font, file: Uint8Array, index: number, name: string) {
    this.#face = face;
    this.#file = file;
    this.#index = index;
    this.#scale = 1000 / face.unitsPerEm;
    this.fontName = name;
  }

  #glyph(char: string) {
    return this.#face.glyphForCodePoint(char.codePointAt(0)!);
  }

  encodeText(text: string): PDFHexString {
    let codes = '';
    for (const char of text) {
      const glyph = this.#glyph(char);
      if (!this.#shown.has(glyph.id)) this.#shown.set(glyph.id, char);
      codes += hex4(glyph.id);
    }
    return PDFHexString.of(codes);
  }

  widthOfTextAtSize(text: string, size: number): number {
    let width = 0;
    for (const char of text) width += this.#glyph(char).advanceWidth;
    return (width * this.#scale * size) / 1000;
  }

  heightOfFontAtSize(size: number, options: { descender?: boolean } = {}): number {
    const { ascent, descent } = this.#face;
    const height = options.descender === false ? ascent : ascent - descent;
    return (height * this.#scale * size) / 1000;
  }

  sizeOfFontAtHeight(height: number): number {
    return (height * 1000) / ((this.#face.ascent - this.#face.descent) * this.#scale);
  }

  /** Writes the font's objects: the subset font file of the glyphs shown, widths, the Unicode map. */
  async embedIntoContext(context: PDFContext, ref: PDFRef): Promise<void> {
    const characters = [...this.#shown.values(), ' '];
    const subset = await subsetFace(this.#file, this.#index, characters);
    const scale = this.#scale;
    const { bbox } = this.#face;
    const glyphs = [...this.#shown.keys()].sort((a, b) => a - b);
    const widths = glyphs.flatMap((id) => [id, [Math.round(this.#face.getGlyph(id).advanceWidth * scale)]]);
    const descriptor = context.obj({
      Type: 'FontDescriptor',
      FontName: this.fontName,
      Flags: 4,
      FontBBox: [bbox.minX, bbox.minY, bbox.maxX, bbox.maxY].map((value) => Math.round(value * scale)),
      ItalicAngle: 0,
      Ascent: Math.round(this.#face.ascent * scale),
      Descent: Math.round(this.#face.descent * scale),
      CapHeight: Math.round((this.#face.capHeight || this.#face.ascent) * scale),
      StemV: 80,
      FontFile3: context.register(context.flateStream(subset, { Subtype: 'OpenType' })),
    });
    const cidFont = context.obj({
      Type: 'Font',
      Subtype: 'CIDFontType0',
      BaseFont: this.fontName,
      CIDSystemInfo: {
        Registry: PDFHexString.fromText('Adobe'),
        Ordering: PDFHexString.fromText('Identity'),
        Supplement: 0,
      },
      FontDescriptor: context.register(descriptor),
      W: widths,
    });
    const utf16 = (text: string) =>
      Array.from({ length: text.length }, (_, at) => hex4(text.charCodeAt(at))).join('');
    const entries = glyphs.map((id) => `<${hex4(id)}> <${utf16(this.#shown.get(id)!)}>`);
    const chunks: string[] = [];
    // A CMap lists at most 100 entries per bfchar block.
    for (let at = 0; at < entries.length; at += 100) {
      const block = entries.slice(at, at + 100);
      chunks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`);
    }
    const toUnicode =
      '/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n' +
      '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n' +
      '/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n' +
      '1 begincodespacerange\n<0000> <ffff>\nendcodespacerange\n' +
      `${chunks.join('\n')}\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend`;
    context.assign(
      ref,
      context.obj({
        Type: 'Font',
        Subtype: 'Type0',
        BaseFont: this.fontName,
        Encoding: 'Identity-H',
        DescendantFonts: [context.register(cidFont)],
        ToUnicode: context.register(context.flateStream(toUnicode)),
      }),
    );
  }
}

/**
 * A face of a font collection as a pdf-lib font, embedded by hb-subset (see CjkEmbedder) when the
 * document's fonts are embedded.
 */
export function cjkFont(
  doc: PDFDocument,
  face: fontkit.Font,
  file: Uint8Array,
  index: number,
  name: string,
): PDFFont {
  const own = new CjkEmbedder(face, file, index, name);
  // pdf-lib takes only its own embedders (by their prototype): this one lends them its methods.
  const embedder = Object.assign(Object.create(CustomFontEmbedder.prototype), {
    fontName: own.fontName,
    encodeText: own.encodeText.bind(own),
    widthOfTextAtSize: own.widthOfTextAtSize.bind(own),
    heightOfFontAtSize: own.heightOfFontAtSize.bind(own),
    sizeOfFontAtHeight: own.sizeOfFontAtHeight.bind(own),
    embedIntoContext: own.embedIntoContext.bind(own),
  });
  // pdf-lib's own fonts are made this way; its type keeps the factory private.
  const of = (PDFFont as unknown as { of: (ref: PDFRef, doc: PDFDocument, embedder: unknown) => PDFFont }).of;
  return of(doc.context.nextRef(), doc, embedder);
}
