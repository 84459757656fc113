import { type BenchContext, sizeOf, workFile } from './context.ts';
import { writeReport } from './inputs.ts';
import { contest, formatBytes, formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import { runTool } from './processes.ts';
import type { Budget, SectionResult, Table } from './report.ts';
import { post } from './service.ts';

/**
 * `/pdf-protect` and `/pdf-unlock` of a 300-page report through the local gateway, side by side
 * with the qpdf command line doing the same (issue 32): AES-256 with a user and an owner password,
 * and its decryption with the user password. Budget: time ≤ 1.5× and bytes ≤ 1.1× of qpdf's.
 *
 *   npm run bench -- --only pdf-crypt
 */

const REPORT_PAGES = 300;
const owner = 'owner-secret';
const user = 'reader';

interface Outcome {
  label: string;
  timeRatio: number;
  bytesRatio: number;
}

export async function benchPdfCrypt(context: BenchContext): Promise<SectionResult> {
  const file = (name: string) => workFile(context, `crypt-${name}`);
  const { qpdf } = context.tools;
  const budgetName = `PDF protect and unlock of ${REPORT_PAGES} pages vs qpdf`;
  if (!qpdf) {
    return {
      title: 'PDF encryption against qpdf',
      tables: [],
      budgets: [{ name: budgetName, target: '—', measured: 'qpdf not installed', met: undefined }],
      notes: [],
    };
  }
  const report = file('report.pdf');
  await writeReport(report, REPORT_PAGES);
  // The unlock source: the report encrypted by qpdf, as a caller's file would be.
  const locked = file('locked.pdf');
  await runTool(qpdf, [report, '--encrypt', user, owner, '256', '--', locked]);
  const url = (path: string) => context.sources.add(path);

  const table: Table = {
    caption: `Time and output, median of ${context.runs} runs (report: ${REPORT_PAGES} pages of text, a photo and vector shapes, ${formatBytes(await sizeOf(report))}; encrypted with AES-256: ${formatBytes(await sizeOf(locked))})`,
    head: ['Operation', 'Contender', 'Time', 'Time vs qpdf', 'Output', 'Bytes vs qpdf'],
    rows: [],
  };

  const measure = async (
    label: string,
    service: () => Promise<number>,
    reference: { label: string; run: () => Promise<number> },
  ): Promise<Outcome> => {
    const { times, results } = await contest(
      [
        { name: 'service', run: service },
        { name: 'reference', run: reference.run },
      ],
      context.runs,
    );
    const ratio = pairedRatio(times.get('service')!, times.get('reference')!);
    const bytes = results.get('service')! / results.get('reference')!;
    table.rows.push(
      [
        label,
        'service (local gateway)',
        formatMs(median(times.get('service')!)),
        formatRatio(ratio),
        formatBytes(results.get('service')),
        formatRatio(bytes),
      ],
      [
        label,
        reference.label,
        formatMs(median(times.get('reference')!)),
        '1.00×',
        formatBytes(results.get('reference')),
        '1.00×',
      ],
    );
    return { label, timeRatio: ratio, bytesRatio: bytes };
  };

  const viaQpdf = (args: string[], output: string) => async () => {
    await runTool(qpdf, [...args, output]);
    return sizeOf(output);
  };
  const outcomes = [
    await measure(
      'protect: AES-256, user and owner password',
      async () =>
        (
          await post(context.service.url, '/pdf-protect', {
            sourceUrl: url(report),
            ownerPassword: owner,
            userPassword: user,
          })
        ).bytes,
      {
        label: 'qpdf --encrypt … 256',
        run: viaQpdf([report, '--encrypt', user, owner, '256', '--'], file('protected-qpdf.pdf')),
      },
    ),
    await measure(
      'unlock: AES-256, the user password',
      async () =>
        (await post(context.service.url, '/pdf-unlock', { sourceUrl: url(locked), password: user })).bytes,
      {
        label: 'qpdf --decrypt',
        run: viaQpdf([`--password=${user}`, '--decrypt', locked], file('unlocked-qpdf.pdf')),
      },
    ),
  ];
  const budgets: Budget[] = [
    {
      name: budgetName,
      target: 'time ≤ 1.50× and bytes ≤ 1.10× of qpdf',
      measured: outcomes
        .map(
          (item) =>
            `${item.label.split(':')[0]}: ${formatRatio(item.timeRatio)} time, ${formatRatio(item.bytesRatio)} bytes`,
        )
        .join('; '),
      met: outcomes.every((item) => item.timeRatio <= 1.5 && item.bytesRatio <= 1.1),
    },
  ];
  return {
    title: 'PDF encryption against qpdf',
    tables: [table],
    budgets,
    notes: [
      'The service runs qpdf too (the layer’s build in Lambda; on this machine the gateway finds Debian’s ' +
        'qpdf unless QPDF_PATH names another), after writing the document as every output is written ' +
        '(pdf-lib: parse, active content removed, saved with object streams). The time beyond qpdf’s is that ' +
        'pass, the download from the source server and the gateway’s round trip.',
    ],
  };
}
