import { readFile, writeFile } from 'node:fs/promises';
import fontkit from '@pdf-lib/fontkit';
import { degrees, PDFDocument, rgb } from 'pdf-lib';
import { fontsDir } from '#shared/pdf/fonts.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { writeReport } from './inputs.ts';
import { contest, formatBytes, formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import type { Budget, SectionResult, Table } from './report.ts';
import { post } from './service.ts';

/**
 * `/pdf-watermark` and `/pdf-page-numbers` on a 300-page report through the local gateway, against
 * a bare pdf-lib script doing the same in-process (issue 32: within 2×). The script embeds the
 * same Noto Sans as a subset and draws on every page; it does not read leniently, place marks on
 * the page as shown, or remove active content, which the service does.
 *
 *   npm run bench -- --only pdf-draw
 */

const PAGES = 300;

async function barePdfLib(
  source: string,
  output: string,
  draw: (doc: PDFDocument) => Promise<void>,
): Promise<number> {
  const doc = await PDFDocument.load(await readFile(source));
  doc.registerFontkit(fontkit);
  await draw(doc);
  await writeFile(output, await doc.save());
  return sizeOf(output);
}

export async function benchPdfDraw(context: BenchContext): Promise<SectionResult> {
  const report = workFile(context, 'draw-report.pdf');
  await writeReport(report, PAGES);
  const sourceUrl = context.sources.add(report);
  const noto = await readFile(`${fontsDir()}/NotoSans-Regular.ttf`);
  const table: Table = {
    caption: `A ${PAGES}-page report (${formatBytes(await sizeOf(report))}), median of ${context.runs} runs`,
    head: ['Operation', 'Contender', 'Time', 'Time vs pdf-lib', 'Output'],
    rows: [],
  };
  const cases = [
    {
      label: 'watermark "CONFIDENTIAL", 45°, 30 % opacity',
      service: { path: '/pdf-watermark', body: { sourceUrl, text: 'CONFIDENTIAL' } },
      bare: async (doc: PDFDocument) => {
        const font = await doc.embedFont(noto, { subset: true });
        for (const page of doc.getPages()) {
          const { width, height } = page.getSize();
          page.drawText('CONFIDENTIAL', {
            x: width * 0.2,
            y: height * 0.3,
            size: 60,
            font,
            color: rgb(0.5, 0.5, 0.5),
            opacity: 0.3,
            rotate: degrees(45),
          });
        }
      },
    },
    {
      label: 'page numbers "Page {n} of {total}"',
      service: { path: '/pdf-page-numbers', body: { sourceUrl, format: 'Page {n} of {total}' } },
      bare: async (doc: PDFDocument) => {
        const font = await doc.embedFont(noto, { subset: true });
        const pages = doc.getPages();
        for (const [index, page] of pages.entries()) {
          const text = `Page ${index + 1} of ${pages.length}`;
          const width = font.widthOfTextAtSize(text, 10);
          page.drawText(text, { x: (page.getWidth() - width) / 2, y: 24, size: 10, font });
        }
      },
    },
  ];
  const budgets: Budget[] = [];
  for (const item of cases) {
    const name = item.service.path.slice(1);
    const { times, results } = await contest(
      [
        {
          name: 'service',
          run: async () => (await post(context.service.url, item.service.path, item.service.body)).bytes,
        },
        {
          name: 'bare',
          run: () => barePdfLib(report, workFile(context, `draw-${name}-bare.pdf`), item.bare),
        },
      ],
      context.runs,
    );
    const bare = times.get('bare')!;
    for (const [key, label] of [
      ['service', 'service (local gateway)'],
      ['bare', 'bare pdf-lib script (in-process)'],
    ] as const) {
      table.rows.push([
        item.label,
        label,
        formatMs(median(times.get(key)!)),
        formatRatio(pairedRatio(times.get(key)!, bare)),
        formatBytes(results.get(key)),
      ]);
    }
    const ratio = pairedRatio(times.get('service')!, bare);
    budgets.push({
      name: `${item.service.path} on ${PAGES} pages vs a bare pdf-lib script`,
      target: 'time ≤ 2.00× of pdf-lib',
      measured: `${formatRatio(ratio)} its time`,
      met: ratio <= 2,
    });
  }
  return {
    title: 'PDF drawing against a bare pdf-lib script',
    tables: [table],
    budgets,
    notes: [
      'The service also parses within its budgets, repairs what viewers repair, places the mark on each ' +
        'page as shown (crop box and rotation), shares one drawing between pages of one size, and removes ' +
        'active content before writing; the script does none of these.',
    ],
  };
}
