import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, createDeflate, deflateSync } from 'node:zlib';
import { zipSync } from 'fflate';
import sharp from 'sharp';
import { ffmpegPath } from '#shared/media/binaries.ts';
import type { RouteSpec } from '#shared/routes.ts';

const run = promisify(execFile);

/**
 * Malicious and malformed sources, keyed by the input format they claim to be. Each specimen says
 * what a careful service must do with it: `refused` (a 4xx) or `bounded` (a 4xx, or a correct 2xx,
 * but always within the time limit and without leaking anything), because a damaged file of some
 * formats still decodes (a cut mp3 is a shorter mp3).
 */
export interface Specimen {
  name: string;
  bytes: Buffer;
  /** The extension the URL ends with and the Content-Type the source server claims. */
  extension: string;
  contentType: string;
  expect: 'refused' | 'bounded';
  /** When refused: the codes that fit; any 4xx when absent. */
  codes?: readonly string[];
  /** Routes that must refuse a specimen that is only `bounded` elsewhere. */
  refusedBy?: (route: RouteSpec) => boolean;
  /** A faithful render is blank white: anything drawn came from outside the file. */
  blank?: boolean;
}

export type Corpus = Record<string, Specimen[]>;

/** Routes that answer a converted file, so must decode every pixel (a metadata route reads headers only). */
const decodingRoutes = (route: RouteSpec) => route.kind === 'file';

/** Routes that state they enforce a limit by declaring its error code. */
const declaring = (code: string) => (route: RouteSpec) => (route.errors as readonly string[]).includes(code);

/** What the corpus points at: files that must never show up in an answer, and a URL that must never be fetched. */
export interface Bait {
  /** A text file holding `token`. */
  secretText: string;
  token: string;
  /** A pure green PNG: green pixels in an answer mean it was read. */
  secretPng: string;
  /** A short WAV; a playlist that reaches it would turn it into the answer. */
  secretWav: string;
  /** A loopback URL whose every hit is counted. */
  trackerUrl: string;
}

/** Every input format the corpus has specimens for. */
export const corpusFormats = (): readonly string[] => [
  ...imageFormats,
  'pdf',
  ...audioFormats,
  ...videoFormats,
];

export const imageFormats = [
  'jpg',
  'png',
  'webp',
  'avif',
  'heic',
  'svg',
  'gif',
  'tiff',
  'bmp',
  'ico',
] as const;
export const audioFormats = ['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a'] as const;
export const videoFormats = ['mp4', 'webm', 'mkv', 'mov', 'avi'] as const;

const mimeOf: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  svg: 'image/svg+xml',
  gif: 'image/gif',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
};

/** A small deterministic generator, so a failing specimen is the same bytes on the next run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function noise(length: number, seed: number): Buffer {
  const next = seeded(seed);
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) bytes[i] = Math.floor(next() * 256);
  // No format's magic starts with these bytes, so the noise can never be sniffed as something.
  bytes.write('NOIS', 0, 'latin1');
  return bytes;
}

/** The middle third overwritten with noise; header and tail intact. */
function corrupted(bytes: Buffer, seed: number): Buffer {
  const copy = Buffer.from(bytes);
  const next = seeded(seed);
  const from = Math.floor(copy.length / 3);
  const to = Math.floor((copy.length * 2) / 3);
  for (let i = from; i < to; i += 1) copy[i] = Math.floor(next() * 256);
  return copy;
}

const damaged = (format: string, bytes: Buffer, seed: number): Specimen[] => [
  specimen(`${format}, cut to 40 %`, format, bytes.subarray(0, Math.floor(bytes.length * 0.4)), 'bounded'),
  specimen(`${format}, only its first 32 bytes`, format, bytes.subarray(0, 32), 'bounded'),
  specimen(`${format}, middle third overwritten`, format, corrupted(bytes, seed), 'bounded'),
  specimen(`random bytes named .${format}`, format, noise(4096, seed), 'refused', [
    'unsupported_input_format',
  ]),
];

function specimen(
  name: string,
  extension: string,
  bytes: Buffer,
  expect: Specimen['expect'],
  codes?: readonly string[],
): Specimen {
  return {
    name,
    extension,
    contentType: mimeOf[extension] ?? 'application/octet-stream',
    bytes,
    expect,
    codes,
  };
}

// ---------------------------------------------------------------------------------------------
// Images

/** A PNG chunk with its CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG whose header claims `width` × `height` with a few bytes of pixel data: a decompression bomb's head. */
export function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64 * 1024))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The small JPEG with its frame header (SOF0) rewritten to claim 65500 × 65500 pixels. */
function jpegClaimingHuge(jpeg: Buffer): Buffer {
  const copy = Buffer.from(jpeg);
  for (let at = 2; at < copy.length - 9; ) {
    if (copy[at] !== 0xff) break;
    const marker = copy[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2) {
      copy.writeUInt16BE(65500, at + 5);
      copy.writeUInt16BE(65500, at + 7);
      return copy;
    }
    at += 2 + copy.readUInt16BE(at + 2);
  }
  throw new Error('no SOF marker in the generated JPEG');
}

/** A GIF with a 4000 × 4000 canvas and 2000 frames of one pixel each: 32 gigapixels once every frame is drawn. */
export function gifFrameBomb(frames = 2000, side = 4000): Buffer {
  const header = Buffer.from('GIF89a', 'latin1');
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(side, 0);
  screen.writeUInt16LE(side, 2);
  screen[4] = 0x80; // a global colour table of two entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const loop = Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0'), 0x03, 0x01, 0x00, 0x00, 0x00]);
  const frame = Buffer.from([
    0x21,
    0xf9,
    0x04,
    0x00,
    0x01,
    0x00,
    0x00,
    0x00, // graphic control: 10 ms
    0x2c,
    0x00,
    0x00,
    0x00,
    0x00,
    0x01,
    0x00,
    0x01,
    0x00,
    0x00, // one pixel at 0,0
    0x02,
    0x02,
    0x44,
    0x01,
    0x00, // LZW: clear, index 0, end
  ]);
  return Buffer.concat([
    header,
    screen,
    palette,
    loop,
    ...Array.from({ length: frames }, () => frame),
    Buffer.from([0x3b]),
  ]);
}

/** A GIF that is also JavaScript: the canvas width is the bytes `/*` and a script follows the trailer. */
function gifScriptPolyglot(gif: Buffer): Buffer {
  const copy = Buffer.from(gif);
  copy.write('/*', 6, 'latin1');
  return Buffer.concat([
    copy,
    Buffer.from('*/=alert(document.domain);//<script>alert(1)</script>', 'latin1'),
  ]);
}

/** The VP8X canvas of an extended WebP rewritten to 16777216 × 16777216. */
function webpClaimingHuge(webp: Buffer): Buffer {
  const at = webp.indexOf('VP8X', 0, 'latin1');
  if (at < 0) throw new Error('no VP8X chunk in the generated WebP');
  const copy = Buffer.from(webp);
  copy.writeUIntLE(0xffffff, at + 12, 3);
  copy.writeUIntLE(0xffffff, at + 15, 3);
  return copy;
}

/** A 2 × 2 BMP, 24-bit: sharp writes no BMP, so it is made by hand. */
function bmp(): Buffer {
  const rowBytes = 8; // 2 pixels × 3 bytes, padded to 4
  const pixels = Buffer.alloc(rowBytes * 2, 0x80);
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + pixels.length, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(2, 18);
  header.writeInt32LE(2, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(pixels.length, 34);
  return Buffer.concat([header, pixels]);
}

/** A BMP whose header claims 1 000 000 × 1 000 000 pixels. */
function bmpClaimingHuge(): Buffer {
  const copy = bmp();
  copy.writeInt32LE(1_000_000, 18);
  copy.writeInt32LE(1_000_000, 22);
  return copy;
}

/** An ICO holding one PNG image, as modern icons do. */
function ico(png: Buffer, width = 16, height = 16): Buffer {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header[6] = width % 256;
  header[7] = height % 256;
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(22, 18);
  return Buffer.concat([header, png]);
}

/** An AVIF's brand rewritten to heic: sharp ships no HEVC encoder, so no real HEIC can be made here. */
function heicLike(avif: Buffer): Buffer {
  const copy = Buffer.from(avif);
  copy.write('heic', 8, 'latin1');
  return copy;
}

function svgSpecimens(bait: Bait): Specimen[] {
  const open =
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    'xmlns:xi="http://www.w3.org/2001/XInclude" width="64" height="64" viewBox="0 0 64 64">' +
    '<rect width="64" height="64" fill="#ffffff"/>';
  const svg = (name: string, inner: string, prolog = '') => ({
    ...specimen(name, 'svg', Buffer.from(`${prolog}${open}${inner}</svg>`), 'bounded'),
    // Everything these draw would come from a file or URL outside the SVG.
    blank: /href=|&secret;/.test(inner) && !/<rect/.test(inner),
  });
  const image = (href: string) => `<image href="${href}" xlink:href="${href}" width="64" height="64"/>`;
  const laughs = [
    '<!ENTITY l0 "lollollollollollollollollollol">',
    ...Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`),
  ].join('');
  return [
    svg('SVG drawing a local PNG through file:', image(`file://${bait.secretPng}`)),
    svg('SVG drawing a local PNG by a relative path out of its folder', image('../secret/green.png')),
    svg('SVG drawing /etc/hostname through file:', image('file:///etc/hostname')),
    svg('SVG drawing an image from a loopback URL', image(bait.trackerUrl)),
    svg(
      'SVG using an external fragment',
      `<use href="${bait.trackerUrl}#a" xlink:href="${bait.trackerUrl}#a"/>`,
    ),
    svg(
      'SVG importing a stylesheet',
      `<style>@import url("${bait.trackerUrl}");</style><rect width="8" height="8"/>`,
    ),
    svg(
      'SVG with XInclude of a local text file',
      `<text x="2" y="30" font-size="12"><xi:include href="file://${bait.secretText}" parse="text"/></text>` +
        '<text x="2" y="50" font-size="12"><xi:include href="file:///etc/hostname" parse="text"/></text>',
    ),
    svg(
      'SVG with external XML entities (XXE)',
      '<text x="2" y="30" font-size="12">&secret;&host;</text>',
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY secret SYSTEM "file://${bait.secretText}">` +
        '<!ENTITY host SYSTEM "file:///etc/hostname">]>',
    ),
    svg(
      'SVG with a billion laughs',
      '<text x="2" y="30">&l9;</text>',
      `<?xml version="1.0"?><!DOCTYPE svg [${laughs}]>`,
    ),
    svg(
      'SVG of 200 000 nested groups',
      `${'<g>'.repeat(200_000)}<rect width="1" height="1"/>${'</g>'.repeat(200_000)}`,
    ),
    svg(
      'SVG with a script and an event handler',
      '<script>alert(1)</script><rect width="9" height="9" onload="alert(2)"/>',
    ),
    {
      ...specimen(
        'SVG claiming 1 000 000 × 1 000 000 pixels',
        'svg',
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="1000000"><rect width="10" height="10"/></svg>',
        ),
        'bounded',
        ['invalid_source_file'],
      ),
      refusedBy: decodingRoutes,
    },
  ];
}

async function imageOriginals(): Promise<Record<string, Buffer>> {
  const picture = sharp({ create: { width: 48, height: 32, channels: 4, background: '#3366cc80' } });
  const png = await picture.clone().png().toBuffer();
  const avif = await picture.clone().avif({ effort: 0 }).toBuffer();
  return {
    jpg: await picture.clone().jpeg().toBuffer(),
    png,
    webp: await picture.clone().webp().toBuffer(),
    avif,
    heic: heicLike(avif),
    gif: await picture.clone().gif().toBuffer(),
    tiff: await picture.clone().tiff().toBuffer(),
    bmp: bmp(),
    ico: ico(await sharp(png).resize(16, 16).png().toBuffer()),
    svg: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32"><rect width="48" height="32" fill="#36c"/></svg>',
    ),
  };
}

function imageSpecimens(bait: Bait, base: Record<string, Buffer>): Corpus {
  const corpus: Corpus = {};
  imageFormats.forEach((format, index) => {
    corpus[format] = damaged(format, base[format]!, 100 + index);
  });
  const pixelBomb = (format: string, bytes: Buffer, what: string): Specimen => ({
    ...specimen(`${what} (pixel bomb)`, format, bytes, 'bounded', ['invalid_source_file']),
    refusedBy: decodingRoutes,
  });
  corpus.png!.push(pixelBomb('png', pngClaiming(100_000, 100_000), 'PNG claiming 100 000 × 100 000'));
  corpus.jpg!.push(pixelBomb('jpg', jpegClaimingHuge(base.jpg!), 'JPEG claiming 65 500 × 65 500'));
  corpus.webp!.push(pixelBomb('webp', webpClaimingHuge(base.webp!), 'WebP claiming 16 777 216 squared'));
  corpus.bmp!.push(pixelBomb('bmp', bmpClaimingHuge(), 'BMP claiming 1 000 000 × 1 000 000'));
  corpus.ico!.push(
    pixelBomb('ico', ico(pngClaiming(100_000, 100_000), 0, 0), 'ICO holding a pixel-bomb PNG'),
  );
  corpus.gif!.push(
    specimen('GIF with 2000 frames on a 4000 × 4000 canvas (frame bomb)', 'gif', gifFrameBomb(), 'bounded'),
    specimen('GIF that is also JavaScript', 'gif', gifScriptPolyglot(base.gif!), 'bounded'),
    specimen(
      'JPEG named .gif with a ZIP appended',
      'gif',
      Buffer.concat([base.jpg!, zipSync({ 'a.txt': Buffer.from(bait.token) })]),
      'bounded',
    ),
  );
  corpus.svg!.push(...svgSpecimens(bait));
  return corpus;
}

// ---------------------------------------------------------------------------------------------
// PDF

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
function pdfDocument(parts: PdfParts = {}): Buffer {
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

async function pdfSpecimens(bait: Bait, valid: Buffer): Promise<Specimen[]> {
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

// ---------------------------------------------------------------------------------------------
// Audio and video

const media: Record<string, string[]> = {
  mp3: ['-f', 'lavfi', '-i', 'sine=d=0.5', '-c:a', 'libmp3lame', '-b:a', '32k', '-f', 'mp3'],
  wav: ['-f', 'lavfi', '-i', 'sine=d=0.5:r=8000', '-c:a', 'pcm_u8', '-f', 'wav'],
  ogg: ['-f', 'lavfi', '-i', 'sine=d=0.5:r=48000', '-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg'],
  aac: ['-f', 'lavfi', '-i', 'sine=d=0.5', '-c:a', 'aac', '-b:a', '32k', '-f', 'adts'],
  flac: ['-f', 'lavfi', '-i', 'sine=d=0.5:r=8000', '-c:a', 'flac', '-f', 'flac'],
  m4a: ['-f', 'lavfi', '-i', 'sine=d=0.5', '-c:a', 'aac', '-b:a', '32k', '-f', 'ipod'],
};
const picture = ['-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10:duration=0.5'];
const sound = ['-f', 'lavfi', '-i', 'sine=d=0.5'];
const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
media.mp4 = [...picture, ...sound, ...x264, '-c:a', 'aac', '-shortest', '-f', 'mp4'];
media.mov = [...picture, ...sound, ...x264, '-c:a', 'aac', '-shortest', '-f', 'mov'];
media.mkv = [...picture, ...sound, ...x264, '-c:a', 'libmp3lame', '-shortest', '-f', 'matroska'];
media.webm = [
  ...picture,
  ...sound,
  ...['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '100k', '-c:a', 'libopus'],
  ...['-shortest', '-f', 'webm'],
];
media.avi = [...picture, ...sound, '-c:v', 'mpeg4', '-c:a', 'libmp3lame', '-shortest', '-f', 'avi'];

async function ffmpegBytes(dir: string, name: string, args: readonly string[]): Promise<Buffer> {
  const path = join(dir, name);
  await run(ffmpegPath, ['-v', 'error', '-nostdin', '-y', ...args, path]);
  return readFile(path);
}

/** A WAV header that says 4 GB of 8 kHz mono samples follow (about 149 hours), then 1 kB of them. */
function wavClaimingHours(): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(0xfffffff0, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(0xffffffd0, 40);
  return Buffer.concat([header, Buffer.alloc(1024, 0x80)]);
}

/** A WAV whose format chunk claims 65 535 channels at 4 GHz. */
function wavImpossible(): Buffer {
  const copy = wavClaimingHours();
  copy.writeUInt16LE(65535, 22);
  copy.writeUInt32LE(0xffffffff, 24);
  return copy;
}

function playlists(bait: Bait, format: string): Specimen[] {
  const dressed = (name: string, text: string) =>
    specimen(`${name} named .${format}`, format, Buffer.from(text), 'refused', ['unsupported_input_format']);
  return [
    dressed(
      'HLS playlist of a local file',
      `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile://${bait.secretWav}\n#EXTINF:1,\n${bait.trackerUrl}\n#EXT-X-ENDLIST\n`,
    ),
    dressed(
      'ffconcat list of a local file',
      `ffconcat version 1.0\nfile '${bait.secretWav}'\nfile '${bait.trackerUrl}'\n`,
    ),
    dressed(
      'SDP file pointing at loopback',
      'v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 9 RTP/AVP 0\n',
    ),
  ];
}

async function mediaOriginals(dir: string): Promise<Record<string, Buffer>> {
  const formats = [...audioFormats, ...videoFormats];
  const made = await Promise.all(formats.map((format) => ffmpegBytes(dir, `base.${format}`, media[format]!)));
  return Object.fromEntries(formats.map((format, index) => [format, made[index]!]));
}

async function mediaSpecimens(dir: string, bait: Bait, base: Record<string, Buffer>): Promise<Corpus> {
  const corpus: Corpus = {};
  [...audioFormats, ...videoFormats].forEach((format, index) => {
    corpus[format] = [...damaged(format, base[format]!, 200 + index), ...playlists(bait, format)];
  });
  const ftyp = base.mp4!.subarray(0, 32);
  corpus.mp4!.push(
    specimen(
      'mp4 file type box followed by an HLS playlist',
      'mp4',
      Buffer.concat([ftyp, Buffer.from(`\n#EXTM3U\n#EXTINF:1,\nfile://${bait.secretWav}\n#EXT-X-ENDLIST\n`)]),
      'refused',
    ),
    {
      ...specimen(
        'two-hour video of 720 frames (duration over the free tier)',
        'mp4',
        await ffmpegBytes(dir, 'long.mp4', [
          ...['-f', 'lavfi', '-i', 'color=black:s=16x16:r=0.1', '-t', '7200'],
          ...x264,
          ...['-f', 'mp4'],
        ]),
        'bounded',
      ),
      refusedBy: declaring('media_too_long'),
    },
  );
  corpus.avi!.push(
    specimen(
      'one 8192 × 8192 frame (dimension bomb)',
      'avi',
      await ffmpegBytes(dir, 'huge.avi', [
        ...['-f', 'lavfi', '-i', 'color=black:s=8192x8192:r=1', '-t', '1'],
        ...['-c:v', 'mjpeg', '-q:v', '31', '-f', 'avi'],
      ]),
      'bounded',
    ),
  );
  corpus.wav!.push(
    // ffmpeg measures a WAV by its real size, so the claim alone is harmless: it must just stay harmless.
    specimen('WAV claiming 149 hours in 1 kB', 'wav', wavClaimingHours(), 'bounded'),
    specimen('WAV claiming 65 535 channels at 4 GHz', 'wav', wavImpossible(), 'refused'),
  );
  return corpus;
}

/** The bait files, the sound original of every format, and the whole corpus, written under `dir`. */
export async function buildCorpus(
  dir: string,
  trackerUrl: string,
): Promise<{ corpus: Corpus; bait: Bait; originals: Record<string, Buffer> }> {
  await mkdir(join(dir, 'secret'), { recursive: true });
  const token = `SECRET-${randomBytes(12).toString('hex')}`;
  const bait: Bait = {
    token,
    secretText: join(dir, 'secret', 'token.txt'),
    secretPng: join(dir, 'secret', 'green.png'),
    secretWav: join(dir, 'secret', 'tone.wav'),
    trackerUrl,
  };
  await writeFile(bait.secretText, `${token}\n`);
  await writeFile(
    bait.secretPng,
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer(),
  );
  await writeFile(bait.secretWav, await ffmpegBytes(dir, 'tone.wav', media.wav!));
  const [images, audioVideo] = await Promise.all([imageOriginals(), mediaOriginals(dir)]);
  const originals: Record<string, Buffer> = { ...images, pdf: pdfDocument(), ...audioVideo };
  const [pdf, mediaCorpus] = await Promise.all([
    pdfSpecimens(bait, originals.pdf!),
    mediaSpecimens(dir, bait, originals),
  ]);
  return { corpus: { ...imageSpecimens(bait, originals), pdf, ...mediaCorpus }, bait, originals };
}
