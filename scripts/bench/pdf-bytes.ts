import { writeFile } from 'node:fs/promises';
import { compressPdf } from '#shared/pdf/compress.ts';
import { mergePdfs } from '#shared/pdf/merge.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { invoicePdf, writeReport, writeScan } from './inputs.ts';
import { contest, formatBytes, formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import { runTool } from './processes.ts';
import type { Budget, SectionResult, Table } from './report.ts';
import { post } from './service.ts';

/**
 * Output bytes against the single best tool for the job (issue 19, budgets 2 and 3): `/pdf-compress`
 * against Ghostscript's pdfwrite and `/pdf-merge` against qpdf, on the same files, side by side.
 *
 *   npm run bench -- --only pdf-bytes
 */

const REPORT_PAGES = 20;

/** Ghostscript's /ebook preset, told to bring every image above 150 dpi down to 150 dpi. */
const ghostscriptEbook = (source: string, output: string) => [
  '-sDEVICE=pdfwrite',
  '-dPDFSETTINGS=/ebook',
  '-dColorImageDownsampleThreshold=1.0',
  '-dGrayImageDownsampleThreshold=1.0',
  '-dMonoImageDownsampleThreshold=1.0',
  '-dNOPAUSE',
  '-dBATCH',
  '-dQUIET',
  `-sOutputFile=${output}`,
  source,
];

interface Case {
  label: string;
  service: () => Promise<number>;
  bare: { label: string; run: () => Promise<number> };
  reference: { label: string; run: () => Promise<number> };
}

interface Outcome {
  label: string;
  bytesRatio: number;
  timeRatio: number;
}

export async function benchPdfBytes(context: BenchContext): Promise<SectionResult> {
  const file = (name: string) => workFile(context, `bytes-${name}`);
  const [scan, report, invoiceA, invoiceB] = ['scan.pdf', 'report.pdf', 'invoice-a.pdf', 'invoice-b.pdf'].map(
    file,
  ) as [string, string, string, string];
  await writeScan(scan);
  await writeReport(report, REPORT_PAGES);
  await writeFile(invoiceA, await invoicePdf(1041));
  await writeFile(invoiceB, await invoicePdf(1042));
  const url = (path: string) => context.sources.add(path);
  const { qpdf, ghostscript } = context.tools;
  const serviceRun = (path: string, body: Record<string, unknown>) => async () =>
    (await post(context.service.url, path, body)).bytes;
  const qpdfMerge = (sources: string[], output: string) => async () => {
    await runTool(qpdf!, ['--empty', '--pages', ...sources, '--', output]);
    return sizeOf(output);
  };

  const table: Table = {
    caption: `Output and latency, median of ${context.runs} runs (scan: 2 A4 pages at 300 dpi, ${formatBytes(await sizeOf(scan))}; report: ${REPORT_PAGES} pages of text, a photo and vector shapes, ${formatBytes(await sizeOf(report))}; invoices: one template, ${formatBytes(await sizeOf(invoiceA))} each)`,
    head: ['Operation', 'Contender', 'Time', 'Time vs tool', 'Output', 'Bytes vs tool'],
    rows: [],
  };

  const measure = async (item: Case): Promise<Outcome> => {
    const { times, results } = await contest(
      [
        { name: 'service', run: item.service },
        { name: 'bare', run: item.bare.run },
        { name: 'reference', run: item.reference.run },
      ],
      context.runs,
    );
    const reference = { ms: times.get('reference')!, bytes: results.get('reference')! };
    for (const [name, label] of [
      ['service', 'service (local gateway)'],
      ['bare', item.bare.label],
      ['reference', item.reference.label],
    ] as const) {
      table.rows.push([
        item.label,
        label,
        formatMs(median(times.get(name)!)),
        formatRatio(pairedRatio(times.get(name)!, reference.ms)),
        formatBytes(results.get(name)),
        formatRatio(results.get(name)! / reference.bytes),
      ]);
    }
    return {
      label: item.label,
      bytesRatio: results.get('service')! / reference.bytes,
      timeRatio: pairedRatio(times.get('service')!, reference.ms),
    };
  };

  const budgets: Budget[] = [];
  if (ghostscript) {
    const compressed = await measure({
      label: 'compress the scan (medium: 150 dpi)',
      service: serviceRun('/pdf-compress', { sourceUrl: url(scan), level: 'medium' }),
      bare: {
        label: 'compressPdf in-process (no gateway)',
        run: async () => (await compressPdf(scan, file('compressed-bare.pdf'), 'medium')).outputBytes,
      },
      reference: {
        label: 'Ghostscript /ebook, every image to 150 dpi',
        run: async () => {
          await runTool(ghostscript, ghostscriptEbook(scan, file('compressed-gs.pdf')));
          return sizeOf(file('compressed-gs.pdf'));
        },
      },
    });
    budgets.push({
      name: 'PDF compression vs Ghostscript /ebook (150 dpi)',
      target: 'bytes ≤ 1.00× and time ≤ 1.00× of gs',
      measured: `${formatRatio(compressed.bytesRatio)} its bytes at ${formatRatio(compressed.timeRatio)} its time`,
      met: compressed.bytesRatio <= 1 && compressed.timeRatio <= 1,
    });
  } else {
    budgets.push(notMeasured('PDF compression vs Ghostscript /ebook (150 dpi)', 'gs'));
  }

  if (qpdf) {
    const merges: Outcome[] = [];
    for (const [label, sources] of [
      [`merge one ${REPORT_PAGES}-page report twice`, [report, report]],
      ['merge two invoices of one template', [invoiceA, invoiceB]],
    ] as const) {
      const name = label.replace(/\W+/g, '-');
      merges.push(
        await measure({
          label,
          service: serviceRun('/pdf-merge', { sources: sources.map(url) }),
          bare: {
            label: 'mergePdfs in-process (no gateway)',
            run: async () => {
              await mergePdfs([...sources], file(`${name}-bare.pdf`));
              return sizeOf(file(`${name}-bare.pdf`));
            },
          },
          reference: {
            label: 'qpdf --empty --pages',
            run: qpdfMerge([...sources], file(`${name}-qpdf.pdf`)),
          },
        }),
      );
    }
    budgets.push({
      name: 'PDF merge vs qpdf, sources sharing fonts and images',
      target: 'bytes ≤ 1.10× of qpdf',
      measured: merges.map((merge) => `${formatRatio(merge.bytesRatio)} (${merge.label})`).join(', '),
      met: merges.every((merge) => merge.bytesRatio <= 1.1),
    });
  } else {
    budgets.push(notMeasured('PDF merge vs qpdf, sources sharing fonts and images', 'qpdf'));
  }

  return {
    title: 'PDF bytes against Ghostscript and qpdf',
    tables: [table],
    budgets,
    notes: [
      'Ghostscript re-encodes every image at its /ebook JPEG quality (QFactor 0.76, about quality 62 on the ' +
        'standard tables, chroma halved); /pdf-compress writes quality 70 on mozjpeg’s photo-tuned table 3, ' +
        'chroma halved, and its pages render closer to the source (PSNR, test/integration/pdf-bytes.test.ts). ' +
        'qpdf stores the objects a source ' +
        'gives twice once, but copies what two sources share; /pdf-merge compares the content of every image, ' +
        'font and content stream.',
    ],
  };
}

const notMeasured = (name: string, tool: string): Budget => ({
  name,
  target: '—',
  measured: `${tool} not installed`,
  met: undefined,
});
