import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFiumLibrary } from '@hyzyla/pdfium';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { compressPdf } from '#shared/pdf/compress.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { writeReport, writeScan } from './inputs.ts';
import {
  type Contender,
  contest,
  formatBytes,
  formatMs,
  formatRatio,
  median,
  pairedRatio,
} from './measure.ts';
import { runTool } from './processes.ts';
import { notInstalled, type SectionResult, type Table } from './report.ts';
import { post } from './service.ts';

/**
 * PDF routes against the engines called directly (pdfium + sharp for rendering, pdf-lib for
 * structure) and against poppler's pdftoppm, qpdf and Ghostscript.
 */

const PAGES = 20;
const DPI = 150;

/** pdfium renders each page, sharp writes it as the route does (PNG, zlib level 6, dpi stated). */
async function rasterizeBare(pdfium: PDFiumLibrary, source: string, outDir: string): Promise<number> {
  const document = await pdfium.loadDocument(await readFile(source));
  let bytes = 0;
  try {
    for (let index = 0; index < document.getPageCount(); index += 1) {
      const bitmap = await document.getPage(index).render({ scale: DPI / 72, render: 'bitmap' });
      const png = await sharp(bitmap.data, {
        raw: { width: bitmap.width, height: bitmap.height, channels: 4 },
      })
        .removeAlpha()
        .withDensity(DPI)
        .png({ compressionLevel: 6 })
        .toBuffer();
      await writeFile(join(outDir, `page-${index + 1}.png`), png);
      bytes += png.length;
    }
  } finally {
    document.destroy();
  }
  return bytes;
}

async function mergeBare(sources: readonly string[], output: string): Promise<number> {
  const merged = await PDFDocument.create();
  for (const path of sources) {
    const doc = await PDFDocument.load(await readFile(path));
    for (const page of await merged.copyPages(doc, doc.getPageIndices())) merged.addPage(page);
  }
  await writeFile(output, await merged.save({ useObjectStreams: true }));
  return sizeOf(output);
}

async function splitBare(source: string, outDir: string): Promise<number> {
  const doc = await PDFDocument.load(await readFile(source));
  let bytes = 0;
  for (const index of doc.getPageIndices()) {
    const single = await PDFDocument.create();
    const [page] = await single.copyPages(doc, [index]);
    single.addPage(page!);
    const saved = await single.save({ useObjectStreams: true });
    await writeFile(join(outDir, `page-${index + 1}.pdf`), saved);
    bytes += saved.length;
  }
  return bytes;
}

/** An empty folder for a run's files, the previous run's removed. */
async function freshDir(path: string): Promise<string> {
  await rm(path, { recursive: true, force: true });
  await mkdir(path, { recursive: true });
  return path;
}

/** The sizes of the files in a folder, summed. */
async function folderBytes(path: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}

export async function benchPdf(context: BenchContext): Promise<SectionResult> {
  const report = workFile(context, 'report-20.pdf');
  const scan = workFile(context, 'scan.pdf');
  await writeReport(report, PAGES);
  await writeScan(scan);
  const reportUrl = context.sources.add(report);
  const scanUrl = context.sources.add(scan);
  const { pdftoppm, qpdf, ghostscript } = context.tools;
  const pdfium = await PDFiumLibrary.init();
  const dir = (name: string) => workFile(context, `pdf-${name}`);

  const table: Table = {
    caption: `Latency, median of ${context.runs} runs (${PAGES}-page report of text, a photo and vector shapes per page, ${formatBytes(await sizeOf(report))}; scan: 2 A4 pages at 300 dpi, ${formatBytes(await sizeOf(scan))})`,
    head: ['Operation', 'Contender', 'Time', 'vs bare engine', 'Output'],
    rows: [],
  };
  const budgets: SectionResult['budgets'] = [];

  const measure = async (
    label: string,
    service: Contender<number>,
    bare: Contender<number> & { label: string },
    alternative: { label: string; run?: () => Promise<number> },
  ) => {
    const contenders = [service, bare];
    if (alternative.run) contenders.push({ name: 'alternative', run: alternative.run });
    const { times, results } = await contest(contenders, context.runs);
    const bareTimes = times.get(bare.name)!;
    const row = (contender: string, name: string) => [
      label,
      contender,
      formatMs(median(times.get(name)!)),
      name === bare.name ? '1.00×' : formatRatio(pairedRatio(times.get(name)!, bareTimes)),
      formatBytes(results.get(name)),
    ];
    table.rows.push(row('service (local gateway)', service.name), row(bare.label, bare.name));
    table.rows.push(
      alternative.run ? row(alternative.label, 'alternative') : notInstalled([label, alternative.label], 5),
    );
    return times;
  };

  const serviceRun = (path: string, body: Record<string, unknown>) => async () =>
    (await post(context.service.url, path, body)).bytes;

  const raster = await measure(
    `rasterize ${PAGES} pages at ${DPI} dpi, PNG`,
    { name: 'service', run: serviceRun('/pdf-to-image', { sourceUrl: reportUrl, dpi: DPI }) },
    {
      name: 'bare',
      label: 'pdfium + sharp in-process (bare)',
      run: async () => rasterizeBare(pdfium, report, await freshDir(dir('raster-bare'))),
    },
    {
      label: 'pdftoppm',
      ...(pdftoppm && {
        run: async () => {
          const out = await freshDir(dir('raster-poppler'));
          await runTool(pdftoppm, ['-r', String(DPI), '-png', report, join(out, 'page')]);
          return folderBytes(out);
        },
      }),
    },
  );
  const versusPoppler = raster.has('alternative')
    ? pairedRatio(raster.get('service')!, raster.get('alternative')!)
    : Number.NaN;
  budgets.push({
    name: 'Rasterizing vs pdftoppm, same dpi',
    target: 'service time ≤ pdftoppm time',
    measured: Number.isNaN(versusPoppler)
      ? 'pdftoppm not installed'
      : `${formatRatio(versusPoppler)} of pdftoppm's time (${((PAGES / median(raster.get('service')!)) * 1000).toFixed(1)} vs ${((PAGES / median(raster.get('alternative')!)) * 1000).toFixed(1)} pages/s)`,
    met: Number.isNaN(versusPoppler) ? undefined : versusPoppler <= 1,
  });

  await measure(
    `merge 2 × ${PAGES} pages`,
    { name: 'service', run: serviceRun('/pdf-merge', { sources: [reportUrl, reportUrl] }) },
    {
      name: 'bare',
      label: 'pdf-lib in-process (bare)',
      run: () => mergeBare([report, report], dir('merged-bare.pdf')),
    },
    {
      label: 'qpdf',
      ...(qpdf && {
        run: async () => {
          await runTool(qpdf, ['--empty', '--pages', report, report, '--', dir('merged-qpdf.pdf')]);
          return sizeOf(dir('merged-qpdf.pdf'));
        },
      }),
    },
  );

  await measure(
    `split ${PAGES} pages into single pages`,
    { name: 'service', run: serviceRun('/pdf-split', { sourceUrl: reportUrl }) },
    {
      name: 'bare',
      label: 'pdf-lib in-process (bare)',
      run: async () => splitBare(report, await freshDir(dir('split-bare'))),
    },
    {
      label: 'qpdf --split-pages',
      ...(qpdf && {
        run: async () => {
          const out = await freshDir(dir('split-qpdf'));
          await runTool(qpdf, ['--split-pages', report, join(out, 'page-%d.pdf')]);
          return folderBytes(out);
        },
      }),
    },
  );

  await measure(
    'compress a scan (medium: 150 dpi, JPEG q 70)',
    { name: 'service', run: serviceRun('/pdf-compress', { sourceUrl: scanUrl, level: 'medium' }) },
    {
      name: 'bare',
      label: 'compressPdf in-process (no gateway)',
      run: async () => (await compressPdf(scan, dir('compressed-bare.pdf'), 'medium')).outputBytes,
    },
    {
      label: 'Ghostscript /ebook (150 dpi)',
      ...(ghostscript && {
        run: async () => {
          const output = dir('compressed-gs.pdf');
          await runTool(ghostscript, [
            '-sDEVICE=pdfwrite',
            '-dPDFSETTINGS=/ebook',
            '-dNOPAUSE',
            '-dBATCH',
            '-dQUIET',
            `-sOutputFile=${output}`,
            scan,
          ]);
          return sizeOf(output);
        },
      }),
    },
  );

  return {
    title: 'PDF',
    tables: [table],
    budgets,
    notes: [
      'Outputs: the service answers one ZIP (rasterize, split), the others write one file per page; sizes are totals. ' +
        'The service also checks every document with pdf-lib before pdfium renders it (limits, encryption, page sizes).',
    ],
  };
}
