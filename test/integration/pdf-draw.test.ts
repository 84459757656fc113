import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * /pdf-watermark, /pdf-page-numbers, /pdf-form-fill, /pdf-flatten and /pdf-info's formFields
 * through the local gateway over real HTTP. Sources are written by Ghostscript, qpdf and a python3
 * script of raw PDF objects (test/support/form-pdf.py); answers are read back by pdftotext,
 * pdftoppm (pixels of the page), pdffonts and qpdf's JSON.
 */

const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';
let count = 0;
const urls: Record<string, string> = {};

const post = (path: string, body: unknown) =>
  postJson(`${gateway.url}${path}`, body, { 'x-api-key': SHARED_KEYS.enterprise });

/** Three pages of 400 × 400 points, white, reading "Body 1" … "Body 3" at the top left. */
const postScript = [1, 2, 3]
  .map(
    (page) =>
      `<< /PageSize [400 400] >> setpagedevice /Helvetica findfont 14 scalefont setfont 20 370 moveto (Body ${page}) show showpage`,
  )
  .join('\n');

beforeAll(async () => {
  gateway = sharedGateway();
  dir = await mkdtemp(join(tmpdir(), 'pdf-draw-'));
  const [ps, made, form, mark] = ['pages.ps', 'made.pdf', 'form.pdf', 'mark.png'].map((name) =>
    join(dir, name),
  );
  await writeFile(ps!, postScript);
  await run('gs', [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    '-sDEVICE=pdfwrite',
    `-sOutputFile=${made}`,
    ps!,
  ]);
  await run('python3', [new URL('../support/form-pdf.py', import.meta.url).pathname, form!]);
  await run('convert', ['-size', '64x32', 'xc:#0000ff', mark!]);
  await sources.start();
  urls.pages = sources.serve('/pages.pdf', await readFile(made!));
  urls.form = sources.serve('/form.pdf', await readFile(form!));
  urls.mark = sources.serve('/mark.png', await readFile(mark!));
}, 60_000);

afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

async function answerFile(response: Response): Promise<string> {
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  count += 1;
  const path = join(dir, `answer-${count}.pdf`);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  expect((await run('qpdf', ['--check', path])).stdout).toContain(
    'No syntax or stream encoding errors found',
  );
  return path;
}

async function pageTexts(path: string): Promise<string[]> {
  const text = (await run('pdftotext', [path, '-'])).stdout;
  return text
    .split('\f')
    .slice(0, -1)
    .map((page) => page.replace(/\s+/g, ' ').trim());
}

/** Page `page` rendered at 72 dpi (one pixel a point) as RGB samples, by pdftoppm. */
async function pixelsOf(
  path: string,
  page: number,
): Promise<{ width: number; at: (x: number, y: number) => number[] }> {
  const out = join(dir, `raster-${count}-${page}`);
  await run('pdftoppm', ['-r', '72', '-f', String(page), '-l', String(page), '-singlefile', path, out]);
  const ppm = await readFile(`${out}.ppm`);
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.toString('latin1', 0, 30))!;
  const width = Number(header[1]);
  const start = header[0].length;
  return {
    width,
    at: (x, y) => [...ppm.subarray(start + (y * width + x) * 3, start + (y * width + x) * 3 + 3)],
  };
}

const fontsOf = async (path: string) => (await run('pdffonts', [path])).stdout;

describe('/pdf-watermark', () => {
  it('draws the text in every script on the named pages, over the content, with embedded subsets', async () => {
    const text = 'Draft Черновик Πρόχειρο 草稿';
    const path = await answerFile(
      // Unturned, so that pdftotext reads the words whole (it cuts turned text into pieces).
      await post('/pdf-watermark', {
        sourceUrl: urls.pages,
        text,
        pages: '2',
        color: '#ff0000',
        opacity: 1,
        rotation: 0,
      }),
    );
    const pages = await pageTexts(path);
    expect(pages[0]).toBe('Body 1');
    for (const word of text.split(' ')) expect(pages[1]).toContain(word);
    expect(pages[2]).toBe('Body 3');
    const fonts = await fontsOf(path);
    expect(fonts).toMatch(/[A-Z]{6}\+NotoSans-Regular\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    expect(fonts).toMatch(/[A-Z]{6}\+NotoSansCJKsc-Regular\s+CID Type 0C \(OT\)\s+Identity-H\s+yes yes yes/);
    // Red across the middle of page 2; the corners and page 1 stay white.
    const marked = await pixelsOf(path, 2);
    const red = (x0: number, x1: number) => {
      for (let x = x0; x < x1; x += 1)
        for (let y = 190; y < 210; y += 1) {
          const [r, g, b] = marked.at(x, y);
          if (r! > 200 && g! < 80 && b! < 80) return true;
        }
      return false;
    };
    expect(red(60, 120)).toBe(true);
    expect(red(280, 340)).toBe(true);
    expect(marked.at(390, 390)).toEqual([255, 255, 255]);
    expect(marked.at(10, 200)).toEqual([255, 255, 255]);
    const plain = await pixelsOf(path, 1);
    expect(plain.at(200, 200)).toEqual([255, 255, 255]);
  });

  it('places an image at a compass point, and refuses both text and imageUrl', async () => {
    const path = await answerFile(
      await post('/pdf-watermark', {
        sourceUrl: urls.pages,
        imageUrl: urls.mark,
        position: 'southeast',
        scale: 0.25,
        opacity: 1,
      }),
    );
    const page = await pixelsOf(path, 3);
    // 100 points wide, 50 high, 16 points (4 % of 400) from the bottom right corner.
    const [r, g, b] = page.at(334, 359);
    expect([r! < 8, g! < 8, b! > 247]).toEqual([true, true, true]);
    expect(page.at(200, 200)).toEqual([255, 255, 255]);
    expect(page.at(60, 359)).toEqual([255, 255, 255]);
    const both = await post('/pdf-watermark', { sourceUrl: urls.pages, text: 'x', imageUrl: urls.mark });
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({
      error: 'validation_failed',
      message: expect.stringContaining('imageUrl'),
    });
  });
});

describe('/pdf-page-numbers', () => {
  it('writes each number on its page at the bottom, the pages left out keeping their place', async () => {
    const path = await answerFile(
      await post('/pdf-page-numbers', {
        sourceUrl: urls.pages,
        format: 'Page {n} of {total}',
        pages: '2-',
        start: 5,
      }),
    );
    expect(await pageTexts(path)).toEqual(['Body 1', 'Body 2 Page 6 of 7', 'Body 3 Page 7 of 7']);
    const page = await pixelsOf(path, 2);
    // Dark pixels in the bottom band of the centre, none at the same height near the sides.
    const dark = (x0: number, x1: number) => {
      for (let x = x0; x < x1; x += 1)
        for (let y = 362; y < 376; y += 1) if (page.at(x, y)[0]! < 128) return true;
      return false;
    };
    expect(dark(160, 240)).toBe(true);
    expect(dark(0, 120)).toBe(false);
  });

  it('answers validation_failed for a character no font has', async () => {
    const response = await post('/pdf-page-numbers', { sourceUrl: urls.pages, format: '{n} \u{1F600}' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'validation_failed',
      message: expect.stringContaining('format'),
    });
  });
});

/** The form's fields as qpdf reads them: full name → /V. */
async function qpdfFields(path: string): Promise<{ hasForm: boolean; values: Record<string, unknown> }> {
  const json = JSON.parse((await run('qpdf', ['--json', '--json-key=acroform', path])).stdout);
  const values: Record<string, unknown> = {};
  for (const field of json.acroform.fields) values[field.fullname] = field.value;
  return { hasForm: json.acroform.hasacroform, values };
}

const annotationCount = async (path: string) =>
  ((await run('qpdf', ['--json', '--json-key=pages', path])).stdout.match(/"annotations": \[\s*"/g) ?? [])
    .length;

describe('/pdf-form-fill and /pdf-flatten', () => {
  const fields = {
    name: 'Ada Лавлейс',
    'address.city': '東京 London',
    subscribe: true,
    plan: 'Pro',
    colour: 'Green',
  };

  it('sets every kind of field, as qpdf reads the values back', async () => {
    const path = await answerFile(await post('/pdf-form-fill', { sourceUrl: urls.form, fields }));
    expect((await qpdfFields(path)).values).toMatchObject({
      name: 'u:Ada Лавлейс',
      'address.city': 'u:東京 London',
      subscribe: '/Yes',
      plan: '/Pro',
      colour: 'u:Green',
    });
    const info = await post('/pdf-info', { sourceUrl: sources.serve('/filled.pdf', await readFile(path)) });
    expect((await info.json()).formFields).toEqual([
      { name: 'name', type: 'text', value: 'Ada Лавлейс' },
      { name: 'address.city', type: 'text', value: '東京 London' },
      { name: 'subscribe', type: 'checkbox', value: true },
      { name: 'plan', type: 'radio', value: 'Pro' },
      { name: 'colour', type: 'dropdown', value: 'Green' },
    ]);
  });

  it('flattens: no fields or annotations left, the values in the page text', async () => {
    const path = await answerFile(
      await post('/pdf-form-fill', { sourceUrl: urls.form, fields, flatten: true }),
    );
    expect(await qpdfFields(path)).toEqual({ hasForm: false, values: {} });
    expect(await annotationCount(path)).toBe(0);
    const [text] = await pageTexts(path);
    for (const value of ['Ada Лавлейс', '東京 London', 'Green', 'Form body']) expect(text).toContain(value);
    // The square annotation's red is now page content.
    expect((await pixelsOf(path, 1)).at(340, 340)).toEqual([255, 0, 0]);
    const flat = await answerFile(await post('/pdf-flatten', { sourceUrl: urls.form }));
    expect(await qpdfFields(flat)).toEqual({ hasForm: false, values: {} });
    expect(await annotationCount(flat)).toBe(0);
    expect((await pixelsOf(flat, 1)).at(340, 340)).toEqual([255, 0, 0]);
  });

  it('answers validation_failed naming a field the form does not have', async () => {
    const response = await post('/pdf-form-fill', {
      sourceUrl: urls.form,
      fields: { name: 'x', nickname: 'y' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'validation_failed',
      message: expect.stringContaining('fields.nickname'),
    });
  });
});
