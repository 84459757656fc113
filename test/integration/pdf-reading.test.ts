import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxedPage, formCyclePdf, jpxPdf, onePage, plainPdf } from '../corpus/pdf.ts';
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
