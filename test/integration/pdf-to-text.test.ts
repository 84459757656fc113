import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * /pdf-to-text through the local gateway over real HTTP, on a two-column page Ghostscript writes
 * (each column drawn whole, the right one first) and a qpdf-locked copy, read back against poppler's
 * pdftotext.
 */

const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';
let made = '';
const urls: Record<string, string> = {};

const post = (body: unknown) =>
  postJson(`${gateway.url}/pdf-to-text`, body, { 'x-api-key': SHARED_KEYS.enterprise });

const column = (x: number, lines: string[]) =>
  lines.map((line, index) => `${x} ${520 - index * 14} moveto (${line}) show`).join('\n');

/** A5, 11 pt Times: a right column drawn before the left one, then a page of one line. */
const postScript = `
<< /PageSize [420 595] >> setpagedevice /Times-Roman findfont 11 scalefont setfont
${column(225, ['Results follow from the', 'second experiment and', 'close the report.'])}
${column(36, ['Columns of text are', 'read one after the', 'other in this paper.', 'A fourth line here.'])}
showpage
<< /PageSize [420 595] >> setpagedevice /Times-Roman findfont 11 scalefont setfont
36 520 moveto (Appendix) show showpage
`;

const words = (text: string) => text.split(/\s+/).filter(Boolean);

beforeAll(async () => {
  gateway = sharedGateway();
  dir = await mkdtemp(join(tmpdir(), 'pdf-to-text-'));
  const [ps, locked] = ['columns.ps', 'locked.pdf'].map((name) => join(dir, name));
  made = join(dir, 'columns.pdf');
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
  await run('qpdf', ['--encrypt', 'user', 'owner', '256', '--', made, locked!]);
  await sources.start();
  urls.made = sources.serve('/columns.pdf', await readFile(made));
  urls.locked = sources.serve('/locked.pdf', await readFile(locked!));
}, 60_000);

afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('/pdf-to-text', () => {
  it('reads the pages in reading order, the words pdftotext finds, in its order', async () => {
    const response = await post({ sourceUrl: urls.made });
    const body = (await response.json()) as {
      pages: Array<{ number: number; text: string }>;
      characters: number;
    };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.pages.map((page) => page.number)).toEqual([1, 2]);
    const reference = (await run('pdftotext', [made, '-'])).stdout.split('\f');
    expect(words(body.pages[0]!.text)).toEqual(words(reference[0]!));
    expect(body.pages[1]!.text).toBe('Appendix');
    expect(body.characters).toBe([...body.pages[0]!.text].length + 'Appendix'.length);
  });

  it('with layout: true keeps the columns apart on each line, as pdftotext -layout does', async () => {
    const response = await post({ sourceUrl: urls.made, pages: '1', layout: true });
    const body = (await response.json()) as { pages: Array<{ number: number; text: string }> };
    expect(response.status, JSON.stringify(body)).toBe(200);
    const split = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => line.trim().split(/\s{2,}/));
    const reference = (await run('pdftotext', ['-layout', '-f', '1', '-l', '1', made, '-'])).stdout;
    expect(split(body.pages[0]!.text)).toEqual(split(reference));
    expect(split(body.pages[0]!.text)[0]).toEqual(['Columns of text are', 'Results follow from the']);
  });

  it('answers invalid_range for a page past the end, encrypted_pdf for a locked source', async () => {
    const past = await post({ sourceUrl: urls.made, pages: '2-3' });
    expect(past.status).toBe(400);
    expect(((await past.json()) as { error: string }).error).toBe('invalid_range');
    const locked = await post({ sourceUrl: urls.locked });
    expect(locked.status).toBe(400);
    expect(((await locked.json()) as { error: string }).error).toBe('encrypted_pdf');
  });
});
