import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';
import { engineUnavailable } from '#shared/engines.ts';
import { ApiError } from '#shared/errors.ts';
import { cjkFont } from '#shared/pdf/cjk-font.ts';

/**
 * The fonts text is drawn in on PDF pages: the files of the fonts layer, the ones the documents
 * routes set pages in. Noto Sans covers Latin, Greek and Cyrillic; what it lacks is looked up in
 * Noto Sans CJK, whose face (Simplified Chinese, Japanese, Korean) is chosen by the text, as the
 * glyph shapes of the same character differ between them. Fonts are embedded as subsets.
 */
type FaceName = 'sans' | 'cjkSc' | 'cjkJp' | 'cjkKr';

/** Each face's file and, in a collection, its name and place. */
const faces: Record<FaceName, { file: string; postscriptName?: string; index?: number }> = {
  sans: { file: 'NotoSans-Regular.ttf' },
  cjkSc: { file: 'NotoSansCJK-Regular.ttc', postscriptName: 'NotoSansCJKsc-Regular', index: 2 },
  cjkJp: { file: 'NotoSansCJK-Regular.ttc', postscriptName: 'NotoSansCJKjp-Regular', index: 0 },
  cjkKr: { file: 'NotoSansCJK-Regular.ttc', postscriptName: 'NotoSansCJKkr-Regular', index: 1 },
};

/** Where the fonts layer's files are: /opt/fonts on Lambda, the layer as built here otherwise. */
export function fontsDir(): string {
  if (process.env.PDF_FONTS_DIR) return process.env.PDF_FONTS_DIR;
  if (process.env.AWS_EXECUTION_ENV !== undefined) return '/opt/fonts';
  return fileURLToPath(new URL('../../.layers/fonts/fonts', import.meta.url));
}

/** Whether the fonts text is drawn in are where fontsDir() says. */
export const fontsPresent = (): boolean =>
  Object.values(faces).every((face) => existsSync(join(fontsDir(), face.file)));

interface LoadedFace {
  bytes: Uint8Array;
  font: fontkit.Font;
  postscriptName: string;
}

/**
 * Faces read and parsed once per container, like a loaded module (the CJK collection takes a second
 * to parse). They answer which characters a face has; drawing uses a copy parsed for the document,
 * as fontkit keeps glyph state that one document must not hand to the next.
 */
const loaded = new Map<FaceName, Promise<LoadedFace>>();

async function loadFace(name: FaceName): Promise<LoadedFace> {
  const { file, postscriptName } = faces[name];
  let bytes: Buffer;
  try {
    bytes = await readFile(join(fontsDir(), file));
  } catch (error) {
    throw engineUnavailable('fonts', error);
  }
  const parsed = postscriptName ? fontkit.create(bytes, postscriptName) : fontkit.create(bytes);
  return { bytes, font: parsed, postscriptName: parsed.postscriptName ?? postscriptName ?? 'Font' };
}

function faceOf(name: FaceName): Promise<LoadedFace> {
  let face = loaded.get(name);
  if (!face) {
    face = loadFace(name);
    loaded.set(name, face);
    face.catch(() => loaded.delete(name));
  }
  return face;
}

const kana = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/u;
const hangul = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u;

/** The CJK face for a text: Japanese where it holds kana, Korean where it holds hangul, else Chinese. */
export function cjkFaceFor(text: string): FaceName {
  if (kana.test(text)) return 'cjkJp';
  if (hangul.test(text)) return 'cjkKr';
  return 'cjkSc';
}

/** A piece of text drawn in one font. */
export interface TextRun {
  font: PDFFont;
  text: string;
}

/** A subset's name tag: six capital letters, as the PDF specification writes subset names. */
const subsetTag = () => Array.from({ length: 6 }, () => String.fromCharCode(65 + randomInt(26))).join('');

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The fonts of one document, each face embedded once, when a text first needs it, as a subset of
 * the characters drawn: Noto Sans by pdf-lib, a CJK face by hb-subset (cjk-font.ts). `finish()`
 * must run after the last text is drawn.
 */
export class DrawingFonts {
  readonly #doc: PDFDocument;
  readonly #embedded = new Map<FaceName, Promise<PDFFont>>();
  readonly #cjk: PDFFont[] = [];

  constructor(doc: PDFDocument) {
    this.#doc = doc;
  }

  #font(name: FaceName): Promise<PDFFont> {
    let font = this.#embedded.get(name);
    if (!font) {
      font = this.#embed(name);
      this.#embedded.set(name, font);
    }
    return font;
  }

  async #embed(name: FaceName): Promise<PDFFont> {
    const face = await faceOf(name);
    const customName = `${subsetTag()}+${face.postscriptName}`;
    const { index } = faces[name];
    if (index !== undefined) {
      const font = cjkFont(this.#doc, face.font, face.bytes, index, customName);
      this.#cjk.push(font);
      return font;
    }
    // pdf-lib parses the file anew for the document: fontkit keeps glyph state one document must not pass on.
    this.#doc.registerFontkit(fontkit);
    return this.#doc.embedFont(face.bytes, { subset: true, customName });
  }

  /** Writes the fonts' subsets into the document, once everything is drawn. */
  async finish(): Promise<void> {
    // pdf-lib embeds the fonts it made when the document is saved; these are embedded here.
    for (const font of this.#cjk) await font.embed();
  }

  /**
   * The text cut into runs, each in the first font that has all its characters (Noto Sans, then
   * the CJK face for the text). Control characters count as spaces. A character no font has
   * answers 400 validation_failed naming `field`.
   */
  async runs(text: string, field: string): Promise<TextRun[]> {
    const clean = text.replace(/\p{Cc}/gu, ' ');
    const sans = await faceOf('sans');
    const cjkName = cjkFaceFor(clean);
    const runs: Array<{ face: FaceName; text: string }> = [];
    for (const char of clean) {
      const point = char.codePointAt(0)!;
      let face: FaceName = 'sans';
      if (!sans.font.hasGlyphForCodePoint(point)) {
        if (!(await faceOf(cjkName)).font.hasGlyphForCodePoint(point)) {
          throw new ApiError(
            'validation_failed',
            `${field}: the character ${codePoint(char)} ("${char}") is in none of the fonts text is drawn in ` +
              '(Noto Sans and Noto Sans CJK: Latin, Greek, Cyrillic, Chinese, Japanese, Korean and more).',
          );
        }
        face = cjkName;
      }
      const last = runs.at(-1);
      // A space between two CJK runs stays in the CJK font, so the text is one run.
      if (last && (last.face === face || (char === ' ' && last.face !== 'sans'))) last.text += char;
      else runs.push({ face, text: char });
    }
    return Promise.all(runs.map(async (run) => ({ font: await this.#font(run.face), text: run.text })));
  }

  /** The one font that draws all of `text` (Noto Sans, else the CJK face, which has Latin too). */
  async singleFont(text: string, field: string): Promise<PDFFont> {
    const runs = await this.runs(text, field);
    if (runs.length === 0) return this.#font('sans');
    if (runs.every((run) => run.font === runs[0]?.font)) return runs[0]!.font;
    return this.#font(cjkFaceFor(text));
  }
}

/** Width of runs at a font size, in points. */
export const widthOfRuns = (runs: readonly TextRun[], size: number): number =>
  runs.reduce((sum, run) => sum + run.font.widthOfTextAtSize(run.text, size), 0);
