import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPageLimitSeconds } from '#shared/pdf/limits.ts';
import {
  boxedPage,
  formCyclePdf,
  jpxPdf,
  onePage,
  patternCyclePdf,
  plainPdf,
  softMaskedPdf,
  stream,
} from '../corpus/pdf.ts';
import { buildPdf } from '../hardening/corpus/pdf.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * The PDF classes real-world files bring (issue 14), through the local gateway over real HTTP:
 * each is read on every PDF route as pdfinfo and pdftoppm read it, and none can stall the gateway.
 */

const sources = new FixtureServer();
let gateway: RunningGateway;
const key = { 'x-api-key': SHARED_KEYS.enterprise };

const post = (path: string, body: unknown) => postJson(`${gateway.url}${path}`, body, key);
const bodyOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

async function imageOf(response: Response) {
  expect(
    response.status,
    await response
      .clone()
      .text()
      .catch(() => ''),
  ).toBe(200);
  const { data, info } = await sharp(await bodyOf(response))
    .raw()
    .toBuffer({ resolveWithObject: true });
  /** The RGB colour at (x, y) from the top left. */
  const at = (x: number, y: number) => {
    const offset = (y * info.width + x) * info.channels;
    return [data[offset], data[offset + 1], data[offset + 2]];
  };
  return { width: info.width, height: info.height, at };
}

const folder = mkdtempSync(join(tmpdir(), 'pdf-reading-'));

/** Runs a reference tool (qpdf, pdfinfo) on files of the test's folder; its standard output. */
const tool = (command: string, args: string[]) =>
  execFileSync(command, args, { cwd: folder, encoding: 'latin1', stdio: ['ignore', 'pipe', 'pipe'] });

/** What pdfinfo, the reference, says of a PDF: its page count and whether it is encrypted. */
function pdfinfo(bytes: Uint8Array): { pages: number; encrypted: boolean; title?: string } {
  writeFileSync(join(folder, 'pdfinfo.pdf'), bytes);
  const text = tool('pdfinfo', ['pdfinfo.pdf']);
  return {
    pages: Number(/^Pages:\s+(\d+)/m.exec(text)?.[1]),
    encrypted: /^Encrypted:\s+yes/m.test(text),
    ...(/^Title:\s+(.+)$/m.test(text) ? { title: /^Title:\s+(.+)$/m.exec(text)![1] } : {}),
  };
}

/** A file qpdf writes from `bytes` with these arguments. */
function qpdf(bytes: Uint8Array, args: string[]): Buffer {
  writeFileSync(join(folder, 'qpdf-in.pdf'), bytes);
  tool('qpdf', [...args, 'qpdf-in.pdf', 'qpdf-out.pdf']);
  return readFileSync(join(folder, 'qpdf-out.pdf'));
}

const helvetica = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const text = stream('', 'BT /F1 24 Tf 20 100 Td (Hello) Tj ET');
/** A page (under node 2) drawing `text` with `helvetica` (objects 4 and 5). */
const page = (type = '/Type /Page', parent = 2) =>
  `<< ${type} /Parent ${parent} 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`;

/** Object 1 to 5 of a one-page file, the root node as given, then `extra` from object 6 on. */
const withTree = (pages: string, extra: string[] = [], trailer = '') =>
  buildPdf(['<< /Type /Catalog /Pages 2 0 R >>', pages, page(), text, helvetica, ...extra], trailer);

/** A fake but well-formed Standard security handler's dictionary (no password opens it). */
const lockDict =
  '<< /Filter /Standard /V 1 /R 2 /O (0123456789abcdef0123456789abcdef) /U (0123456789abcdef0123456789abcdef) /P -44 >>';

/** `pdf` with one more revision appended whose trailer has no /Encrypt (an earlier one's is left). */
function updatedWithoutEncrypt(pdf: Buffer): Buffer {
  const previous = /startxref\s+(\d+)/.exec(pdf.toString('latin1').slice(pdf.lastIndexOf('startxref')))![1];
  const info = Buffer.from('7 0 obj\n<< /Producer (an update) >>\nendobj\n', 'latin1');
  const xrefAt = pdf.length + info.length;
  const tail = [
    'xref',
    '0 1',
    '0000000000 65535 f ',
    '7 1',
    `${String(pdf.length).padStart(10, '0')} 00000 n `,
    'trailer',
    `<< /Size 8 /Root 1 0 R /Info 7 0 R /Prev ${previous} >>`,
    'startxref',
    String(xrefAt),
    '%%EOF',
    '',
  ].join('\n');
  return Buffer.concat([pdf, info, Buffer.from(tail, 'latin1')]);
}

let banner: string;
let bom: string;
let noEof: string;
let untyped: string;

beforeAll(async () => {
  await sources.start();
  const plain = await plainPdf(2);
  banner = sources.serve(
    '/mail/banner.pdf',
    Buffer.concat([Buffer.from('X-Mailer: gateway 1.0\r\nContent-Type: application/pdf\r\n\r\n'), plain]),
  );
  bom = sources.serve('/mail/bom.pdf', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]));
  noEof = sources.serve('/scanner/scan.pdf', plain.subarray(0, plain.lastIndexOf('%%EOF')));
  untyped = sources.serve(
    '/odd/untyped.pdf',
    onePage({
      pages: '<< /Kids [3 0 R] /Count 1 >>',
      page: '<< /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
    }),
  );
  gateway = sharedGateway();
});

afterAll(async () => {
  await gateway?.stop();
  await sources.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('PDFs as real-world files come, on every PDF route', () => {
  it.each([
    ['bytes before %PDF- (a mail banner)', () => banner],
    ['a UTF-8 byte-order mark before %PDF-', () => bom],
    ['no %%EOF marker (a scanner’s output)', () => noEof],
    ['page-tree nodes without /Type', () => untyped],
  ])('reads a PDF with %s', async (_name, url) => {
    const sourceUrl = url();
    const info = await post('/pdf-info', { sourceUrl });
    expect(info.status).toBe(200);
    expect((await info.json()).pages).toBeGreaterThanOrEqual(1);

    const image = await imageOf(await post('/pdf-to-image', { sourceUrl, pages: '1', dpi: 72 }));
    expect(image.width).toBeGreaterThan(0);

    const split = await post('/pdf-split', { sourceUrl, ranges: '1' });
    expect(split.status).toBe(200);
    expect((await PDFDocument.load(await bodyOf(split))).getPageCount()).toBe(1);

    const compressed = await post('/pdf-compress', { sourceUrl });
    expect(compressed.status).toBe(200);
    await PDFDocument.load(await bodyOf(compressed), { ignoreEncryption: true });

    const merged = await post('/pdf-merge', { sources: [sourceUrl, sourceUrl] });
    expect(merged.status).toBe(200);
    expect((await PDFDocument.load(await bodyOf(merged))).getPageCount()).toBeGreaterThanOrEqual(2);
  });
});

describe('page boxes', () => {
  it.each([
    ['reversed corners', boxedPage('[200 100 0 0]'), { width: 200, height: 100 }],
    ['a broken array, with a CropBox', boxedPage('[0 0 200]', '[0 0 150 120]'), { width: 150, height: 120 }],
    [
      'an empty box inherited from the parent, with a CropBox',
      boxedPage(undefined, '[0 0 144 72]', '[0 0 0 0]'),
      { width: 144, height: 72 },
    ],
    [
      'a broken box, the parent’s sane',
      boxedPage('[0 /A 1 1]', undefined, '[0 0 216 72]'),
      { width: 216, height: 72 },
    ],
    [
      'a CropBox larger than the A4 MediaBox',
      boxedPage('[0 0 595 842]', '[0 0 1687 2386]'),
      { width: 595, height: 842 },
    ],
  ])('sizes a first page with %s as pdfinfo does', async (name, bytes, size) => {
    const sourceUrl = sources.serve(`/boxes/${name.replace(/\W+/g, '-')}.pdf`, bytes);
    const info = await post('/pdf-info', { sourceUrl });
    expect(info.status).toBe(200);
    expect((await info.json()).pageSizes).toEqual([size]);
    const image = await imageOf(await post('/pdf-to-image', { sourceUrl, dpi: 72 }));
    expect([image.width, image.height]).toEqual([size.width, size.height]);
  });

  it('renders an A4 page whose CropBox would be over the pixel limit unclipped', async () => {
    const sourceUrl = sources.serve('/boxes/huge-crop.pdf', boxedPage('[0 0 595 842]', '[0 0 14400 14400]'));
    const image = await imageOf(await post('/pdf-to-image', { sourceUrl, dpi: 150 }));
    // pdfium rounds 595 × 842 pt at 150 dpi down to whole pixels.
    expect([image.width, image.height]).toEqual([1239, 1754]);
  });
});

describe('pages that make the renderer fail or loop', () => {
  it('renders a page with a JPEG 2000 image', async () => {
    const sourceUrl = sources.serve('/jpx/plain.pdf', await jpxPdf());
    const image = await imageOf(await post('/pdf-to-image', { sourceUrl, dpi: 72 }));
    expect([image.width, image.height]).toEqual([200, 200]);
    // The image (red to blue) is drawn over x 50–150, y 50–125 pt; the blue square over 20–120.
    expect(image.at(135, 120)).not.toEqual([255, 255, 255]);
  });

  it('renders a page whose JPEG 2000 image states 16000 × 16000 pixels without it, while other renders go on', async () => {
    const bomb = sources.serve('/jpx/bomb.pdf', await jpxPdf({ declaredSide: 16_000 }));
    const healthy = sources.serve('/jpx/healthy.pdf', await plainPdf(1));
    const answers = await Promise.all([
      post('/pdf-to-image', { sourceUrl: bomb, dpi: 72 }),
      ...Array.from({ length: 3 }, () => post('/pdf-to-image', { sourceUrl: healthy, dpi: 72 })),
      fetch(`${gateway.url}/status`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    const page = await imageOf(answers[0]!);
    expect(page.at(135, 120)).toEqual([255, 255, 255]); // the image is left out
    expect(page.at(30, 170)).toEqual([0, 0, 255]); // the square is drawn
    const healthyPage = await imageOf(answers[1]!);
    expect([healthyPage.width, healthyPage.height]).toEqual([300, 200]);
  });

  it.each([
    ['a form that draws itself twice', formCyclePdf('self', 2)],
    ['forms A and B that draw each other three times', formCyclePdf('pair', 3)],
    ['a form without resources that draws itself through the page’s', formCyclePdf('inherited', 2)],
  ])('renders a page looping through %s, and /status answers meanwhile', async (name, bytes) => {
    const sourceUrl = sources.serve(`/loops/${name.replace(/\W+/g, '-')}.pdf`, bytes);
    const [rendered, status] = await Promise.all([
      post('/pdf-to-image', { sourceUrl, dpi: 72 }),
      fetch(`${gateway.url}/status`),
    ]);
    expect(status.status).toBe(200);
    const image = await imageOf(rendered);
    expect(image.at(30, 170)).toEqual([0, 0, 255]); // the page's own square
    expect(image.at(60, 140)).not.toEqual([255, 255, 255]); // the form's first drawing
    expect((await fetch(`${gateway.url}/status`)).status).toBe(200);
    const compressed = await post('/pdf-compress', { sourceUrl });
    expect(compressed.status).toBe(200);
  });
});

describe('files pdfinfo and qpdf read as unencrypted (issue 29)', () => {
  const pages = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
  it.each([
    [
      'an /Encrypt left in an older trailer, the newest without it',
      () =>
        updatedWithoutEncrypt(
          withTree(pages, [lockDict], '/Encrypt 6 0 R /ID [(0123456789abcdef) (0123456789abcdef)] '),
        ),
    ],
    ['an /Encrypt that is null', () => withTree(pages, ['null'], '/Encrypt 6 0 R ')],
  ])('reads a file with %s as unencrypted, on every route', async (name, make) => {
    const bytes = make();
    expect(pdfinfo(bytes)).toMatchObject({ pages: 1, encrypted: false });
    expect(tool('qpdf', ['--show-encryption', 'pdfinfo.pdf'])).toContain('File is not encrypted');
    const sourceUrl = sources.serve(`/unencrypted/${name.replace(/\W+/g, '-')}.pdf`, bytes);
    const info = await post('/pdf-info', { sourceUrl });
    expect(await info.json()).toMatchObject({ pages: 1, encrypted: false });
    const split = await post('/pdf-split', { sourceUrl });
    expect(split.status).toBe(200);
    // The output carries no /Encrypt on: pdfinfo reads it as the plain file it is.
    expect(pdfinfo(await bodyOf(split))).toMatchObject({ pages: 1, encrypted: false });
    expect((await imageOf(await post('/pdf-to-image', { sourceUrl, dpi: 72 }))).width).toBe(200);
  });
});

describe('page trees, counted by following /Kids as viewers follow them (issue 29)', () => {
  const twoNodes = buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [6 0 R 7 0 R] /Count 2 >>',
    page('/Type /Page', 6),
    text,
    helvetica,
    '<< /Type /Pages /Parent 2 0 R /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Pages /Parent 2 0 R /Kids [3 0 R] /Count 1 >>',
  ]);
  it.each([
    ['the same page listed twice', withTree('<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>')],
    ['a page given directly in /Kids', withTree(`<< /Type /Pages /Kids [3 0 R ${page()}] /Count 2 >>`)],
    [
      'a page with a misspelt /Type',
      withTree('<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>', [page('/Type /Pgae')]),
    ],
    [
      'a page typed /Pages, without /Kids',
      withTree('<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>', [page('/Type /Pages')]),
    ],
    ['one page under two nodes', twoNodes],
  ])('counts the pages of a tree with %s as pdfinfo does, and compresses every one', async (name, bytes) => {
    const expected = pdfinfo(bytes).pages;
    expect(expected).toBe(2);
    const sourceUrl = sources.serve(`/trees/${name.replace(/\W+/g, '-')}.pdf`, bytes);
    const info = await post('/pdf-info', { sourceUrl });
    expect((await info.json()).pages).toBe(expected);
    const compressed = await post('/pdf-compress', { sourceUrl });
    expect(compressed.status).toBe(200);
    const output = await bodyOf(compressed);
    expect(pdfinfo(output).pages).toBe(expected);
    writeFileSync(join(folder, 'compressed.pdf'), output);
    expect(tool('pdftotext', ['compressed.pdf', '-']).match(/Hello/g)).toHaveLength(expected);
  });
});

describe('what pdfinfo reads of an encrypted or damaged file is read (issue 29)', () => {
  /** Two pages with a photo and a title, made by pdf-lib; qpdf encrypts it. */
  async function photoPdf(): Promise<Buffer> {
    const doc = await PDFDocument.create();
    doc.setTitle('Quarterly report');
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c04020' } })
      .jpeg()
      .toBuffer();
    const image = await doc.embedJpg(jpeg);
    for (const size of [
      [300, 200],
      [200, 300],
    ] as const) {
      doc.addPage([...size]).drawImage(image, { x: 10, y: 10, width: 64, height: 48 });
    }
    return Buffer.from(await doc.save({ useObjectStreams: true }));
  }

  it.each([
    ['AES-256, no user password, object streams', ['--encrypt', '', 'owner', '256', '--']],
    ['AES-128, no user password, object streams', ['--encrypt', '', 'owner', '128', '--use-aes=y', '--']],
  ])('describes a file encrypted with %s as pdfinfo does', async (name, args) => {
    const bytes = qpdf(await photoPdf(), ['--object-streams=generate', ...args]);
    const reference = pdfinfo(bytes);
    expect(reference).toMatchObject({ pages: 2, encrypted: true, title: 'Quarterly report' });
    const sourceUrl = sources.serve(`/encrypted/${name.replace(/\W+/g, '-')}.pdf`, bytes);
    const info = await (await post('/pdf-info', { sourceUrl })).json();
    expect(info).toMatchObject({
      pages: reference.pages,
      encrypted: true,
      title: reference.title,
      pageSizes: [
        { width: 300, height: 200 },
        { width: 200, height: 300 },
      ],
    });
    expect((await post('/pdf-split', { sourceUrl })).status).toBe(400);
  });

  const cut = withTree('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  const xrefAt = cut.lastIndexOf('startxref');
  it.each([
    [
      'a catalog without /Type',
      buildPdf(['<< /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(), text, helvetica]),
    ],
    [
      'a catalog of a misspelt /Type',
      buildPdf([
        '<< /Type /Catalogue /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        page(),
        text,
        helvetica,
      ]),
    ],
    [
      'garbage for its startxref offset',
      Buffer.concat([cut.subarray(0, xrefAt), Buffer.from('startxref\ngarbage\n%%EOF\n')]),
    ],
  ])('renders, compresses and splits a file with %s, which pdfinfo reads', async (name, bytes) => {
    expect(pdfinfo(bytes).pages).toBe(1);
    const sourceUrl = sources.serve(`/damaged/${name.replace(/\W+/g, '-')}.pdf`, bytes);
    expect((await imageOf(await post('/pdf-to-image', { sourceUrl, dpi: 72 }))).width).toBe(200);
    const compressed = await post('/pdf-compress', { sourceUrl });
    expect(compressed.status).toBe(200);
    expect(pdfinfo(await bodyOf(compressed)).pages).toBe(1);
    const split = await post('/pdf-split', { sourceUrl, ranges: '1' });
    expect(split.status).toBe(200);
    expect(pdfinfo(await bodyOf(split)).pages).toBe(1);
  });
});

describe('rendering within its limit, also under load (issue 29)', () => {
  it('renders a page whose tiling pattern fills itself, while three other PDFs render', async () => {
    const sourceUrl = sources.serve('/loops/pattern.pdf', patternCyclePdf(2));
    const healthy = sources.serve('/loops/healthy.pdf', await plainPdf(3));
    const [looping, ...others] = await Promise.all([
      post('/pdf-to-image', { sourceUrl, dpi: 72 }),
      ...Array.from({ length: 3 }, () => post('/pdf-to-image', { sourceUrl: healthy, dpi: 150 })),
    ]);
    const image = await imageOf(looping!);
    expect(image.at(30, 170)).toEqual([0, 0, 255]); // the page's own square
    expect(image.at(150, 50)).not.toEqual([255, 255, 255]); // the pattern's cell, drawn once
    expect(others.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });

  it(`answers a page that takes longer than ${renderPageLimitSeconds} s with 400 naming the limit, while three other PDFs render`, async () => {
    // Ten times what a loaded machine renders in about the limit: past it on any machine.
    const slow = sources.serve('/slow/soft-masks.pdf', softMaskedPdf(400));
    const healthy = sources.serve('/slow/healthy.pdf', await plainPdf(3));
    const [stuck, ...others] = await Promise.all([
      post('/pdf-to-image', { sourceUrl: slow, dpi: 300 }),
      ...Array.from({ length: 3 }, () => post('/pdf-to-image', { sourceUrl: healthy, dpi: 150 })),
    ]);
    expect(stuck!.status).toBe(400);
    expect(await stuck!.json()).toEqual({
      error: 'invalid_source_file',
      message: `The PDF's page 1 could not be rendered within ${renderPageLimitSeconds} s, the limit for one page. Leave it out with \`pages\`.`,
    });
    expect(others.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });
});

describe('/pdf-compress is never larger than its source (issue 29)', () => {
  it('keeps the source when cleaning its active content would make it larger', async () => {
    // 400 small links and a page action, packed by qpdf into object streams at Flate's highest
    // level: pdf-lib writes the cleaned file 1.4 KB larger.
    const links = Array.from(
      { length: 400 },
      (_, at) =>
        `<< /Type /Annot /Subtype /Link /Rect [${at % 200} 0 ${(at % 200) + 1} 1] /Border [0 0 0] /Dest [3 0 R /Fit] >>`,
    );
    const annots = links.map((_, at) => `${7 + at} 0 R`).join(' ');
    const loose = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /AA << /O 6 0 R >> /Annots [${annots}] >>`,
      text,
      helvetica,
      '<< /S /JavaScript /JS (1) >>',
      ...links,
    ]);
    const bytes = qpdf(loose, ['--object-streams=generate', '--compression-level=9']);
    const sourceUrl = sources.serve('/compact/links.pdf', bytes);
    const answer = await post('/pdf-compress', { sourceUrl, level: 'high' });
    expect(answer.status).toBe(200);
    const body = await bodyOf(answer);
    expect(answer.headers.get('x-original-size')).toBe(String(bytes.length));
    expect(answer.headers.get('x-output-size')).toBe(String(body.length));
    expect(body.length).toBeLessThanOrEqual(bytes.length);
    expect(Buffer.compare(body, bytes)).toBe(0);
  });
});
