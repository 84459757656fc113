import { createDeflate, deflateSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { type Bait, damaged, type Specimen, specimen } from './specimen.ts';

/* PDF specimens: cyclic page trees, deep nesting, huge decoded streams and pages, polyglots. */

/** A PDF from object bodies (object n is `objects[n - 1]`), with a correct cross-reference table. */
export function buildPdf(objects: ReadonlyArray<string | Buffer>, trailer = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const part = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R ${trailer}>>`,
    'startxref',
    String(length),
    '%%EOF',
    '',
  ].join('\n');
  return Buffer.concat([...parts, Buffer.from(xref, 'latin1')]);
}

const stream = (dictionary: string, data: Buffer) =>
  Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);

const PAGES = 8;
const drawing = stream('', Buffer.from('0 0 1 rg 20 20 100 100 re f', 'latin1'));

interface PdfParts {
  catalog?: string;
  /** The root page-tree node (object 2). */
  pages?: string;
  /** Added to the first page's dictionary (object 3). */
  firstPage?: string;
  /** The content stream every page draws (object 3 + PAGES). */
  contents?: Buffer;
  /** Further objects, numbered from 4 + PAGES. */
  extra?: Array<string | Buffer>;
  mediaBox?: string;
}

/**
 * A PDF of eight pages (so that the ranges of the routes' examples fit it) sharing one content
 * stream, with any part replaced: object 1 the catalog, 2 the page tree, 3–10 the pages, 11 the contents.
 */
export function pdfDocument(parts: PdfParts = {}): Buffer {
  const contentsId = 3 + PAGES;
  const kids = Array.from({ length: PAGES }, (_, index) => `${3 + index} 0 R`).join(' ');
  const page = (index: number) =>
    `<< /Type /Page /Parent 2 0 R /MediaBox ${parts.mediaBox ?? '[0 0 200 200]'} /Contents ${contentsId} 0 R ${index === 0 ? (parts.firstPage ?? '') : ''}>>`;
  return buildPdf([
    parts.catalog ?? '<< /Type /Catalog /Pages 2 0 R >>',
    parts.pages ?? `<< /Type /Pages /Kids [${kids}] /Count ${PAGES} >>`,
    ...Array.from({ length: PAGES }, (_, index) => page(index)),
    parts.contents ?? drawing,
    ...(parts.extra ?? []),
  ]);
}

/** Zeros deflated in a stream, without holding them all in memory. */
async function deflatedZeros(megabytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < megabytes; i += 1) {
    if (!deflate.write(zeros)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return Buffer.concat(chunks);
}

export async function pdfSpecimens(bait: Bait, valid: Buffer): Promise<Specimen[]> {
  const pdf = (
    name: string,
    bytes: Buffer,
    expect: Specimen['expect'] = 'bounded',
    codes?: readonly string[],
  ) => specimen(name, 'pdf', bytes, expect, codes);
  const extraId = 4 + PAGES;
  return [
    ...damaged('pdf', valid, 300),
    pdf(
      'PDF whose page tree lists itself as its kid',
      pdfDocument({ pages: '<< /Type /Pages /Kids [2 0 R] /Count 5 >>' }),
    ),
    pdf(
      'PDF with two page-tree nodes that are each other’s kid, claiming 10^9 pages',
      pdfDocument({
        pages: `<< /Type /Pages /Kids [${extraId} 0 R 3 0 R] /Count 1000000000 >>`,
        extra: ['<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1000000000 >>'],
      }),
    ),
    pdf(
      'PDF whose object is a reference to itself',
      pdfDocument({ firstPage: `/Resources ${extraId} 0 R`, extra: [`${extraId} 0 R`] }),
    ),
    pdf(
      'PDF with arrays nested 100 000 deep',
      pdfDocument({ firstPage: `/Deep ${'['.repeat(100_000)}${']'.repeat(100_000)}` }),
    ),
    pdf(
      'PDF with dictionaries nested 50 000 deep',
      pdfDocument({ firstPage: `/Deep ${'<< /A '.repeat(50_000)}1${' >>'.repeat(50_000)}` }),
    ),
    pdf(
      'PDF whose content stream inflates to 128 MB',
      pdfDocument({ contents: stream('/Filter /FlateDecode', await deflatedZeros(128)) }),
    ),
    pdf(
      'PDF whose content stream is a chain of 64 filters',
      pdfDocument({
        contents: stream(`/Filter [${' /ASCIIHexDecode'.repeat(64)} ]`, Buffer.from('0 0 1 rg>', 'latin1')),
      }),
    ),
    pdf(
      'PDF with a ZIP appended (polyglot)',
      Buffer.concat([valid, zipSync({ 'secret.txt': Buffer.from(bait.token) })]),
    ),
    pdf(
      'ZIP whose first entry holds a PDF (polyglot)',
      Buffer.from(zipSync({ 'a.pdf': [valid, { level: 0 }], 'secret.txt': Buffer.from(bait.token) })),
      'refused',
    ),
    pdf(
      'PDF whose cross-reference table points past its end',
      Buffer.concat([
        valid.subarray(0, valid.lastIndexOf('startxref')),
        Buffer.from('startxref\n999999999\n%%EOF\n'),
      ]),
    ),
    pdf(
      'PDF that opens a local file on load (Launch and GoToR actions)',
      pdfDocument({
        catalog:
          `<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /Launch /F (${bait.secretText}) >> ` +
          `/AA << /WC << /S /GoToR /F (file://${bait.secretText}) /D [0 /Fit] >> >> >>`,
      }),
    ),
    pdf('PDF whose pages are 10^6 points square', pdfDocument({ mediaBox: '[0 0 1000000 1000000]' })),
    pdf(
      'PDF with an image XObject claiming 100 000 × 100 000 pixels',
      pdfDocument({
        firstPage: `/Resources << /XObject << /Im ${extraId} 0 R >> >>`,
        contents: stream('', Buffer.from('q 100 0 0 100 0 0 cm /Im Do Q', 'latin1')),
        extra: [
          stream(
            '/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode',
            deflateSync(Buffer.alloc(1024)),
          ),
        ],
      }),
    ),
  ];
}
