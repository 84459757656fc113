import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFHexString, PDFName, rgb, StandardFonts } from 'pdf-lib';
import { buildPdf } from '../hardening/corpus/pdf.ts';

/*
 * PDFs of the classes real-world files bring that our own writers never make: bytes before the
 * header, no end marker, odd page boxes, JPEG 2000 images, form XObject cycles, untyped page-tree
 * nodes, and their neighbours (damaged cross-reference tables, object streams, broken page trees,
 * Unicode metadata, empty content, huge but legal pages). Each file is made here; none is copied.
 */

export interface CorpusPdf {
  name: string;
  bytes: Buffer;
}

const run = promisify(execFile);
const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** A content stream object body. */
export const stream = (dictionary: string, data: string | Buffer) => {
  const bytes = typeof data === 'string' ? latin1(data) : data;
  return Buffer.concat([
    latin1(`<< ${dictionary} /Length ${bytes.length} >>\nstream\n`),
    bytes,
    latin1('\nendstream'),
  ]);
};

const square = '0 0 1 rg 20 20 100 100 re f';

/** One page (object 3) under a root node (object 2); parts replaced as given. */
export function onePage(
  parts: { pages?: string; page?: string; contents?: Buffer; extra?: Array<string | Buffer> } = {},
): Buffer {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    parts.pages ?? '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    parts.page ?? '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
    parts.contents ?? stream('', square),
    ...(parts.extra ?? []),
  ]);
}

/** A sound document of `pages` pages with text, made by pdf-lib. */
export async function plainPdf(pages = 2, save: { useObjectStreams?: boolean } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pages; index += 1) {
    const page = doc.addPage([300, 200]);
    page.drawRectangle({ x: 0, y: 0, width: 150, height: 200, color: rgb(0.8, 0.1, 0.1) });
    page.drawText(`Page ${index + 1}`, { x: 160, y: 100, size: 14, font });
  }
  return Buffer.from(await doc.save({ useObjectStreams: save.useObjectStreams ?? false }));
}

/** A page with a MediaBox and CropBox as given (array text), or none where undefined. */
export function boxedPage(media: string | undefined, crop?: string, parentMedia?: string): Buffer {
  const box = (key: string, value: string | undefined) => (value === undefined ? '' : `/${key} ${value}`);
  return onePage({
    pages: `<< /Type /Pages /Kids [3 0 R] /Count 1 ${box('MediaBox', parentMedia)} >>`,
    page: `<< /Type /Page /Parent 2 0 R ${box('MediaBox', media)} ${box('CropBox', crop)} /Contents 4 0 R >>`,
  });
}

/**
 * A page drawing form 5, which draws form 6 (or itself) `fanOut` times: a cycle pdfium follows to
 * its nesting limit, drawing fanOut^depth times.
 */
export function formCyclePdf(kind: 'self' | 'pair' | 'inherited', fanOut: number): Buffer {
  const draws = (name: string) =>
    Array.from({ length: fanOut }, () => `q 0.8 0 0 0.8 10 10 cm /${name} Do Q`);
  const form = (colour: string, resources: string) =>
    stream(
      `/Type /XObject /Subtype /Form /BBox [0 0 200 200] ${resources}`,
      `${colour} rg 30 30 60 60 re f ${draws('F').join(' ')}`,
    );
  const target = kind === 'pair' ? 6 : 5;
  return onePage({
    page: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /XObject << /F 5 0 R >> >> >>',
    extra: [
      // A form without /Resources draws with the page's: /F is the form itself.
      form('0 1 0', kind === 'inherited' ? '' : `/Resources << /XObject << /F ${target} 0 R >> >>`),
      ...(kind === 'pair' ? [form('1 0 0', '/Resources << /XObject << /F 5 0 R >> >>')] : []),
    ],
  });
}

/**
 * A page filled with tiling pattern 5, whose cell (a green square) fills itself with pattern 5
 * again `fanOut` times: a loop pdfium follows without end (poppler draws the cell once).
 */
export function patternCyclePdf(fanOut: number): Buffer {
  const fills = Array.from({ length: fanOut }, (_, at) => `/Pattern cs /P scn ${at * 5} 0 20 20 re f`);
  return onePage({
    page: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Pattern << /P 5 0 R >> >> >>',
    contents: stream('', `${square} /Pattern cs /P scn 100 100 100 100 re f`),
    extra: [
      stream(
        '/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 40 40] /XStep 40 /YStep 40 /Resources << /Pattern << /P 5 0 R >> >>',
        `0 1 0 rg 0 0 40 40 re f ${fills.join(' ')}`,
      ),
    ],
  });
}

/**
 * A large page (1400 pt square) that fills itself `draws` times through a luminosity soft mask
 * of an axial shading: valid, small, and slow to render (each draw composites the whole page; at
 * 300 dpi one draw takes pdfium seconds).
 */
export function softMaskedPdf(draws: number): Buffer {
  const fills = Array.from({ length: draws }, () => '/G gs 0 0 1400 1400 re f');
  return onePage({
    page: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1400 1400] /Contents 4 0 R /Resources << /ExtGState << /G 5 0 R >> >> >>',
    contents: stream('', `0 0 1 rg ${fills.join(' ')}`),
    extra: [
      '<< /Type /ExtGState /SMask << /Type /Mask /S /Luminosity /G 6 0 R >> /ca 0.5 >>',
      stream(
        '/Type /XObject /Subtype /Form /BBox [0 0 1400 1400] /Group << /S /Transparency /CS /DeviceRGB >> /Resources << /Shading << /Sh 7 0 R >> >>',
        '/Sh sh',
      ),
      '<< /ShadingType 2 /ColorSpace /DeviceRGB /Coords [0 0 1400 1400] /Function << /FunctionType 2 /Domain [0 1] /C0 [0 0 0] /C1 [1 1 1] /N 1 >> /Extend [true true] >>',
    ],
  });
}

/** A JPEG 2000 (JP2) picture made by ImageMagick from a generated PNG. */
export async function jp2Image(width: number, height: number): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'jp2-'));
  try {
    await run('convert', ['-size', `${width}x${height}`, 'gradient:red-blue', join(folder, 'x.jp2')]);
    return await readFile(join(folder, 'x.jp2'));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * A page showing a JPEG 2000 image (/JPXDecode) over part of a blue square. `declaredSide` rewrites the
 * codestream's image and tile size (SIZ), as a damaged or hostile file may state them.
 */
export async function jpxPdf(options: { declaredSide?: number } = {}): Promise<Buffer> {
  const jp2 = Buffer.from(await jp2Image(64, 48));
  if (options.declaredSide !== undefined) {
    const siz = jp2.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51])) + 2;
    for (const at of [4, 8, 20, 24]) jp2.writeUInt32BE(options.declaredSide, siz + at);
  }
  return onePage({
    page: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /XObject << /Im 5 0 R >> >> >>',
    contents: stream('', `${square} q 100 0 0 75 50 50 cm /Im Do Q`),
    extra: [stream('/Type /XObject /Subtype /Image /Width 64 /Height 48 /Filter /JPXDecode', jp2)],
  });
}

/** Shifts every offset of the cross-reference table: readers must find the objects themselves. */
function damageXref(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const start = text.lastIndexOf('\nxref');
  if (start < 0) return pdf;
  const damaged = text
    .slice(start)
    .replace(/^(\d{10}) (\d{5}) n/gm, (_line, offset: string, generation: string) => {
      return `${String(Number(offset) + 7).padStart(10, '0')} ${generation} n`;
    });
  return latin1(text.slice(0, start) + damaged);
}

const withoutEndMarker = (pdf: Buffer) => {
  const end = pdf.lastIndexOf('%%EOF');
  return end < 0 ? pdf : pdf.subarray(0, end);
};

/** The small corpus: one file per class and neighbour, made in well under a second (JP2 aside). */
export async function pdfCorpus(): Promise<CorpusPdf[]> {
  const plain = await plainPdf();
  const unicode = await PDFDocument.load(plain);
  unicode.setTitle('Ünïcødé 書名 ✓ 🚀');
  unicode.setAuthor('Ζωή');
  const info = unicode.context.lookup(unicode.context.trailerInfo.Info);
  if (info && 'set' in info)
    (info as { set(k: PDFName, v: unknown): void }).set(PDFName.of('Subject'), PDFHexString.of('FEFF00E9'));
  const untyped = onePage({
    pages: '<< /Kids [3 0 R] /Count 1 >>',
    page: '<< /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
  });
  return [
    { name: 'sound (control)', bytes: plain },
    {
      name: 'mail banner before %PDF-',
      bytes: Buffer.concat([latin1('X-Mailer: gateway 1.0\r\nContent-Type: application/pdf\r\n\r\n'), plain]),
    },
    { name: 'UTF-8 BOM before %PDF-', bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]) },
    { name: '1000 bytes before %PDF-', bytes: Buffer.concat([Buffer.alloc(1000, 0x20), plain]) },
    { name: 'no %%EOF', bytes: withoutEndMarker(plain) },
    {
      name: 'no trailer, no %%EOF (cut after the objects)',
      bytes: plain.subarray(0, plain.lastIndexOf('\nxref')),
    },
    { name: 'damaged xref offsets', bytes: damageXref(plain) },
    {
      name: 'startxref past the end',
      bytes: Buffer.concat([
        plain.subarray(0, plain.lastIndexOf('startxref')),
        latin1('startxref\n99999999\n%%EOF\n'),
      ]),
    },
    { name: 'object streams and an xref stream', bytes: await plainPdf(3, { useObjectStreams: true }) },
    { name: 'reversed MediaBox', bytes: boxedPage('[200 200 0 0]') },
    { name: 'MediaBox of three numbers, CropBox sane', bytes: boxedPage('[0 0 200]', '[0 0 150 150]') },
    {
      name: 'MediaBox inherited and empty, CropBox sane',
      bytes: boxedPage(undefined, '[0 0 150 180]', '[0 0 0 0]'),
    },
    { name: 'MediaBox broken, parent sane', bytes: boxedPage('[0 0 /A 1]', undefined, '[0 0 180 120]') },
    { name: 'no MediaBox anywhere', bytes: boxedPage(undefined) },
    { name: 'CropBox larger than the A4 MediaBox', bytes: boxedPage('[0 0 595 842]', '[0 0 1687 2386]') },
    { name: 'page-tree nodes without /Type', bytes: untyped },
    {
      name: 'page tree with a missing kid',
      bytes: onePage({ pages: '<< /Type /Pages /Kids [9 0 R 3 0 R] /Count 2 >>' }),
    },
    {
      name: 'page tree with a kid twice',
      bytes: onePage({ pages: '<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>' }),
    },
    { name: 'Unicode metadata', bytes: Buffer.from(await unicode.save({ useObjectStreams: false })) },
    { name: 'zero-length content stream', bytes: onePage({ contents: stream('', '') }) },
    { name: 'huge but legal page (14400 x 1000 pt)', bytes: boxedPage('[0 0 14400 1000]') },
    { name: 'form XObject drawing itself twice', bytes: formCyclePdf('self', 2) },
    { name: 'form XObjects A -> B -> A, three times each', bytes: formCyclePdf('pair', 3) },
    { name: 'form without resources drawing itself through the page', bytes: formCyclePdf('inherited', 2) },
    { name: 'tiling pattern filling itself twice', bytes: patternCyclePdf(2) },
    { name: 'JPEG 2000 image', bytes: await jpxPdf() },
    {
      name: 'not a PDF: header past 1024 bytes',
      bytes: Buffer.concat([Buffer.alloc(2000, 0x20), latin1('just text %PDF-')]),
    },
    {
      name: 'not a PDF: garbage after the header',
      bytes: Buffer.concat([latin1('%PDF-1.4\n'), Buffer.alloc(3000, 'q')]),
    },
    {
      name: 'deflated content stream',
      bytes: onePage({ contents: stream('/Filter /FlateDecode', deflateSync(square)) }),
    },
  ];
}

/**
 * Small, deterministic damage: `count` bytes overwritten at positions drawn from `seed`, so a run
 * is reproducible.
 */
function scratched(pdf: Buffer, seed: number, count: number): Buffer {
  const copy = Buffer.from(pdf);
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state;
  };
  for (let index = 0; index < count; index += 1) copy[next() % copy.length] = next() % 256;
  return copy;
}

/**
 * The large corpus: every file of the small one, and each again behind a mail banner, without its
 * end marker, with its cross-reference offsets shifted, and scratched at a few random bytes.
 */
export async function pdfCorpusLarge(): Promise<CorpusPdf[]> {
  const small = await pdfCorpus();
  const banner = latin1('Received: from mail.example.org\r\n\r\n');
  return small.flatMap((entry, index) => [
    entry,
    { name: `${entry.name}, behind a banner`, bytes: Buffer.concat([banner, entry.bytes]) },
    { name: `${entry.name}, no %%EOF`, bytes: withoutEndMarker(entry.bytes) },
    { name: `${entry.name}, xref shifted`, bytes: damageXref(entry.bytes) },
    ...[1, 2, 3].map((seed) => ({
      name: `${entry.name}, scratched (seed ${seed})`,
      bytes: scratched(entry.bytes, seed * 1000 + index, 8),
    })),
  ]);
}

/** Writes the corpus to a folder (for a look with other readers). */
export async function writePdfCorpus(folder: string): Promise<string[]> {
  const files: string[] = [];
  for (const [index, entry] of (await pdfCorpus()).entries()) {
    const path = join(folder, `${String(index).padStart(2, '0')}-${entry.name.replace(/[^\w]+/g, '-')}.pdf`);
    await writeFile(path, entry.bytes);
    files.push(path);
  }
  return files;
}
