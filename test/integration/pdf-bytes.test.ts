import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as compress } from '#functions/pdf-compress/handler.ts';
import { handler as merge } from '#functions/pdf-merge/handler.ts';
import { invoicePdf, writeReport, writeScan } from '../../scripts/bench/inputs.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { apiEvent, call } from '../support/lambda.ts';
import { renderPage } from '../unit/pdf/fixtures.ts';

/**
 * Output sizes against the single best tool on the same inputs (issue 19): a merge no more than
 * 1.10 × qpdf's, a compression at `medium` no larger than Ghostscript's `/ebook` told to
 * downsample everything above 150 dpi, and no less faithful to the source. The inputs are the
 * benchmark's own, made from scratch.
 */

const run = promisify(execFile);
const server = new FixtureServer();
let dir = '';
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-bytes-'));
  files.report = join(dir, 'report.pdf');
  files.scan = join(dir, 'scan.pdf');
  files.invoiceA = join(dir, 'invoice-a.pdf');
  files.invoiceB = join(dir, 'invoice-b.pdf');
  await writeReport(files.report, 6);
  await writeScan(files.scan);
  await writeFile(files.invoiceA, await invoicePdf(1041));
  await writeFile(files.invoiceB, await invoicePdf(1042));
  await server.start();
  for (const [name, path] of Object.entries(files)) server.serve(`/${name}.pdf`, await readFile(path));
}, 60_000);

afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

/** What a reference tool writes to `output`, as bytes. */
async function tool(command: string, args: string[], output: string): Promise<Buffer> {
  await run(command, args, { maxBuffer: 1024 * 1024 });
  return readFile(output);
}

/** qpdf's structural check, and poppler's page count. */
async function checkValid(bytes: Buffer, pages: number) {
  const path = join(dir, `check-${Math.random()}.pdf`);
  await writeFile(path, bytes);
  const checked = await run('qpdf', ['--check', path]);
  expect(checked.stdout).toContain('No syntax or stream encoding errors found');
  expect((await run('pdfinfo', [path])).stdout).toMatch(new RegExp(`Pages:\\s+${pages}\\n`));
}

const imageCount = async (bytes: Uint8Array) =>
  (await PDFDocument.load(bytes)).context
    .enumerateIndirectObjects()
    .filter(
      ([, object]) =>
        object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'),
    ).length;

/** Every page of `merged` from `firstPage` on renders exactly as the pages of `source`. */
async function expectSamePages(merged: Uint8Array, firstPage: number, source: Uint8Array, pages: number) {
  for (let index = 0; index < pages; index += 1) {
    const [got, want] = [await renderPage(merged, firstPage + index), await renderPage(source, index)];
    expect(
      Buffer.compare(Buffer.from(got.data), Buffer.from(want.data)),
      `page ${firstPage + index + 1}`,
    ).toBe(0);
  }
}

/** Peak signal-to-noise ratio of two renders of one page, colour channels only. */
function psnr(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  let count = 0;
  for (let index = 0; index < a.length; index += 1) {
    if (index % 4 === 3) continue;
    const difference = a[index]! - b[index]!;
    sum += difference * difference;
    count += 1;
  }
  return 10 * Math.log10((255 * 255) / (sum / count));
}

describe('/pdf-merge against qpdf', () => {
  it('merges one report given twice into no more than 1.10 × what qpdf writes', async () => {
    const answer = await call(
      merge,
      apiEvent({ sources: [server.url('/report.pdf'), server.url('/report.pdf')] }),
    );
    expect(answer.statusCode).toBe(200);
    const output = join(dir, 'report-qpdf.pdf');
    const reference = await tool(
      'qpdf',
      ['--empty', '--pages', files.report!, files.report!, '--', output],
      output,
    );
    expect(answer.body.length).toBeLessThanOrEqual(reference.length * 1.1);
    await checkValid(answer.body, 12);
    const source = await readFile(files.report!);
    await expectSamePages(answer.body, 0, source, 6);
    await expectSamePages(answer.body, 6, source, 6);
  }, 60_000);

  it('stores the shared letterhead and logo of two invoices once, within 1.10 × qpdf', async () => {
    const answer = await call(
      merge,
      apiEvent({ sources: [server.url('/invoiceA.pdf'), server.url('/invoiceB.pdf')] }),
    );
    expect(answer.statusCode).toBe(200);
    const output = join(dir, 'invoices-qpdf.pdf');
    const reference = await tool(
      'qpdf',
      ['--empty', '--pages', files.invoiceA!, files.invoiceB!, '--', output],
      output,
    );
    expect(answer.body.length).toBeLessThanOrEqual(reference.length * 1.1);
    // The letterhead photo, the logo and the logo's soft mask: once, where qpdf keeps two of each.
    expect(await imageCount(reference)).toBe(6);
    expect(await imageCount(answer.body)).toBe(3);
    await checkValid(answer.body, 2);
    await expectSamePages(answer.body, 0, await readFile(files.invoiceA!), 1);
    await expectSamePages(answer.body, 1, await readFile(files.invoiceB!), 1);
  }, 60_000);
});

describe('/pdf-compress against Ghostscript', () => {
  it('writes a 300 dpi scan at medium no larger than gs /ebook at 150 dpi, and as faithful', async () => {
    const answer = await call(compress, apiEvent({ sourceUrl: server.url('/scan.pdf'), level: 'medium' }));
    expect(answer.statusCode).toBe(200);
    const output = join(dir, 'scan-gs.pdf');
    const reference = await tool(
      'gs',
      [
        '-sDEVICE=pdfwrite',
        '-dPDFSETTINGS=/ebook',
        '-dColorImageDownsampleThreshold=1.0',
        '-dGrayImageDownsampleThreshold=1.0',
        '-dMonoImageDownsampleThreshold=1.0',
        '-dNOPAUSE',
        '-dBATCH',
        '-dQUIET',
        `-sOutputFile=${output}`,
        files.scan!,
      ],
      output,
    );
    expect(answer.body.length).toBeLessThanOrEqual(reference.length);
    await checkValid(answer.body, 2);
    const source = await readFile(files.scan!);
    for (const index of [0, 1]) {
      const original = (await renderPage(source, index, 150)).data;
      const ours = psnr(original, (await renderPage(answer.body, index, 150)).data);
      const ghostscript = psnr(original, (await renderPage(reference, index, 150)).data);
      expect(
        ours,
        `page ${index + 1}: ${ours.toFixed(2)} dB vs gs ${ghostscript.toFixed(2)} dB`,
      ).toBeGreaterThanOrEqual(ghostscript);
    }
  }, 120_000);
});
