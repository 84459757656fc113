import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * /pdf-rotate, /pdf-organize and /pdf-metadata through the local gateway over real HTTP, on PDFs
 * written by Ghostscript and qpdf, their answers read back by qpdf and poppler.
 */

const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';
let count = 0;
const urls: Record<string, string> = {};

const post = (path: string, body: unknown) =>
  postJson(`${gateway.url}${path}`, body, { 'x-api-key': SHARED_KEYS.enterprise });

/** Four A6 pages reading "Page 1" … "Page 4", by Ghostscript from PostScript. */
const postScript = [1, 2, 3, 4]
  .map(
    (page) =>
      `<< /PageSize [298 420] >> setpagedevice /Helvetica findfont 24 scalefont setfont 40 200 moveto (Page ${page}) show showpage`,
  )
  .join('\n');

beforeAll(async () => {
  gateway = sharedGateway();
  dir = await mkdtemp(join(tmpdir(), 'pdf-tools-'));
  const [ps, made, turned, locked] = ['pages.ps', 'made.pdf', 'turned.pdf', 'locked.pdf'].map((name) =>
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
  // qpdf gives page 2 a rotation of its own, and writes a locked copy.
  await run('qpdf', [made!, '--rotate=+90:2', turned!]);
  await run('qpdf', ['--encrypt', 'user', 'owner', '256', '--', made!, locked!]);
  await sources.start();
  urls.turned = sources.serve('/turned.pdf', await readFile(turned!));
  urls.locked = sources.serve('/locked.pdf', await readFile(locked!));
}, 60_000);

afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Saves a 200 answer, checks it with qpdf and returns its path. */
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

const pdfinfo = async (...args: string[]) => (await run('pdfinfo', args)).stdout;

/** Each page's rotation as pdfinfo reads it. */
async function rotationsOf(path: string): Promise<number[]> {
  const out = await pdfinfo('-f', '1', '-l', '99', path);
  return [...out.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((match) => Number(match[1]));
}

/** The text of each page, as pdftotext reads it. */
async function pageTexts(path: string): Promise<string[]> {
  const text = (await run('pdftotext', [path, '-'])).stdout;
  return text
    .split('\f')
    .slice(0, -1)
    .map((page) => page.trim());
}

describe('/pdf-rotate', () => {
  it('adds the angle to the named pages’ own rotation', async () => {
    const path = await answerFile(
      await post('/pdf-rotate', { sourceUrl: urls.turned, angle: 270, pages: '2-3' }),
    );
    expect(await rotationsOf(path)).toEqual([0, 0, 270, 0]);
    expect(await pageTexts(path)).toEqual(['Page 1', 'Page 2', 'Page 3', 'Page 4']);
  });

  it('answers invalid_range for a page past the end, encrypted_pdf for a locked source', async () => {
    const past = await post('/pdf-rotate', { sourceUrl: urls.turned, angle: 90, pages: '5' });
    expect(past.status).toBe(400);
    expect(await past.json()).toMatchObject({
      error: 'invalid_range',
      message: expect.stringContaining('4 pages'),
    });
    const locked = await post('/pdf-organize', { sourceUrl: urls.locked, pages: '1' });
    expect(locked.status).toBe(400);
    expect((await locked.json()).error).toBe('encrypted_pdf');
  });
});

describe('/pdf-organize', () => {
  it('writes the pages in the order named, repeats included, the rest left out', async () => {
    const path = await answerFile(await post('/pdf-organize', { sourceUrl: urls.turned, pages: '3,1-2,2' }));
    expect(await pageTexts(path)).toEqual(['Page 3', 'Page 1', 'Page 2', 'Page 2']);
    expect(await rotationsOf(path)).toEqual([0, 0, 90, 90]);
  });
});

describe('/pdf-metadata', () => {
  it('sets and removes fields, and the Info dictionary and the XMP agree', async () => {
    const path = await answerFile(
      await post('/pdf-metadata', {
        sourceUrl: urls.turned,
        title: 'Quarterly report – Ünïcode',
        author: 'Ada & Co',
        keywords: ['finance', 'q3'],
        creationDate: '2024-05-06T07:08:09+02:00',
        producer: null,
      }),
    );
    const info = await pdfinfo('-isodates', path);
    expect(info).toMatch(/^Title:\s+Quarterly report – Ünïcode$/m);
    expect(info).toMatch(/^Author:\s+Ada & Co$/m);
    expect(info).toMatch(/^Keywords:\s+finance, q3$/m);
    expect(info).toMatch(/^CreationDate:\s+2024-05-06T05:08:09Z$/m);
    expect(info).not.toMatch(/^Producer:/m);
    const xmp = await pdfinfo('-meta', path);
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Quarterly report – Ünïcode</rdf:li>');
    expect(xmp).toContain('<rdf:li>Ada &amp; Co</rdf:li>');
    expect(xmp).toContain('<pdf:Keywords>finance, q3</pdf:Keywords>');
    expect(xmp).toContain('<xmp:CreateDate>2024-05-06T05:08:09.000Z</xmp:CreateDate>');
    expect(xmp).not.toContain('Producer');
    expect(xmp).not.toContain('Ghostscript');
  });
});
