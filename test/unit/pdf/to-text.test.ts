import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { extractPdfText, layOut, type PlacedChar, readingOrder } from '#shared/pdf/to-text.ts';

const run = promisify(execFile);
let dir = '';
let twoColumns = '';

/** Two A5 pages by Ghostscript: page 1 two columns of three lines, page 2 one line. */
const postScript = `
<< /PageSize [420 595] >> setpagedevice /Helvetica findfont 12 scalefont setfont
40 500 moveto (alpha beta gamma) show 230 500 moveto (kappa lambda mu) show
40 485 moveto (delta epsilon) show 230 485 moveto (nu xi omicron) show
40 470 moveto (zeta eta theta) show 230 470 moveto (pi rho sigma) show
showpage
<< /PageSize [420 595] >> setpagedevice /Helvetica findfont 12 scalefont setfont
40 500 moveto (second page words) show showpage
`;

const words = (text: string) => text.split(/\s+/).filter(Boolean);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-text-'));
  await writeFile(join(dir, 'columns.ps'), postScript);
  twoColumns = join(dir, 'columns.pdf');
  await run('gs', [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    '-sDEVICE=pdfwrite',
    `-sOutputFile=${twoColumns}`,
    join(dir, 'columns.ps'),
  ]);
}, 30_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const char = (text: string, left: number, bottom: number): PlacedChar => ({
  text,
  left,
  right: left + 6,
  bottom,
  top: bottom + 12,
});

describe('layOut', () => {
  it('puts characters at one height on one line, top to bottom, and keeps a far column apart', () => {
    const chars = [
      char('c', 100, 500),
      char('a', 0, 500),
      char('b', 6, 501),
      char('d', 0, 480),
      char('e', 9, 480),
    ];
    expect(layOut(chars)).toBe('ab               c\nd e');
  });

  it('answers nothing for a page without drawn characters', () => {
    expect(layOut([char(' ', 0, 0)])).toBe('');
  });
});

const word = (text: string, left: number, bottom: number) =>
  [...text].map((letter, index) => char(letter, left + index * 6, bottom));

describe('readingOrder', () => {
  it('reads a column whole before the one to its right', () => {
    const chars = [
      ...word('ab', 100, 500),
      ...word('cd', 0, 500),
      ...word('ef', 0, 480),
      ...word('gh', 100, 480),
    ];
    expect(readingOrder(chars)).toBe('cd\nef\n\nab\ngh');
  });

  it('reads line by line when a line crosses the gutter', () => {
    const chars = [
      ...word('headlineoverbothcolumns', 0, 520),
      ...word('ab', 100, 500),
      ...word('cd', 0, 500),
    ];
    expect(readingOrder(chars)).toBe('headlineoverbothcolumns\ncd ab');
  });
});

describe('extractPdfText', () => {
  it('reads every page in reading order, the words pdftotext finds', async () => {
    const result = await extractPdfText(twoColumns, { pages: undefined, layout: false });
    expect(result.pages.map((page) => page.number)).toEqual([1, 2]);
    const { stdout } = await run('pdftotext', ['-f', '1', '-l', '1', twoColumns, '-']);
    expect(words(result.pages[0]!.text)).toEqual(words(stdout));
    expect(result.pages[1]!.text).toBe('second page words');
    expect(result.characters).toBe(result.pages.reduce((sum, page) => sum + [...page.text].length, 0));
  });

  it('with layout keeps the columns apart on each line, as pdftotext -layout does', async () => {
    const result = await extractPdfText(twoColumns, { pages: parseRangeSpec('1', 'pages'), layout: true });
    expect(result.pages).toHaveLength(1);
    const lines = result.pages[0]!.text.split('\n').map((line) => line.trim().split(/\s{2,}/));
    expect(lines).toEqual([
      ['alpha beta gamma', 'kappa lambda mu'],
      ['delta epsilon', 'nu xi omicron'],
      ['zeta eta theta', 'pi rho sigma'],
    ]);
    const { stdout } = await run('pdftotext', ['-layout', '-f', '1', '-l', '1', twoColumns, '-']);
    const reference = stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.trim().split(/\s{2,}/));
    expect(lines).toEqual(reference);
  });

  it('answers invalid_range for a page past the end', async () => {
    const error = await extractPdfText(twoColumns, {
      pages: parseRangeSpec('3', 'pages'),
      layout: false,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_range');
  });
});
