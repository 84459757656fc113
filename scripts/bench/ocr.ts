import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { renderParagraph, sampleText, wordAccuracy } from '../../test/support/ocr-text.ts';
import { type BenchContext, workFile } from './context.ts';
import { contest, formatBytes, formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import type { Budget, SectionResult } from './report.ts';
import { BENCH_KEY, post } from './service.ts';

/**
 * /ocr against the Tesseract command line doing the same (one 300 dpi page of text, English and
 * German, orientation detection, text and TSV written, one thread), the engine's peak memory per
 * page, and word accuracy on clean and crooked, noisy scans in both languages. The text is set by
 * ImageMagick (test/support/ocr-text.ts), so the reference is known word for word.
 */

const run = promisify(execFile);
const maxSlowdown = 1.3;

async function readText(context: BenchContext, sourceUrl: string, language: string): Promise<string> {
  const response = await fetch(`${context.service.url}/ocr`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'x-api-key': BENCH_KEY },
    body: JSON.stringify({ sourceUrl, languages: [language], outputFormat: 'txt' }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`/ocr answered ${response.status}: ${text}`);
  return text;
}

export async function benchOcr(context: BenchContext): Promise<SectionResult> {
  const file = (name: string) => workFile(context, name);
  await Promise.all([
    renderParagraph(sampleText.eng, file('ocr-eng.png')),
    renderParagraph(sampleText.deu, file('ocr-deu.png')),
    renderParagraph(sampleText.eng, file('ocr-eng-noisy.png'), true),
    renderParagraph(sampleText.deu, file('ocr-deu-noisy.png'), true),
  ]);
  // A page of text: six paragraphs, English and German in turn, 2480 × 3120 pixels at 300 dpi.
  const paragraphs = ['eng', 'deu', 'eng', 'deu', 'eng', 'deu'].map((language) =>
    file(`ocr-${language}.png`),
  );
  await run('convert', [
    ...paragraphs,
    '-append',
    '+repage',
    '-units',
    'PixelsPerInch',
    '-density',
    '300',
    file('ocr-page.png'),
  ]);
  const pageUrl = context.sources.add(file('ocr-page.png'));

  const cliArgs = [
    file('ocr-page.png'),
    file('ocr-cli'),
    '-l',
    'eng+deu',
    '--psm',
    '1',
    '--oem',
    '1',
    '--dpi',
    '300',
  ];
  const cliConfig = ['-c', 'tessedit_create_txt=1', '-c', 'tessedit_create_tsv=1'];
  const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
  const runs = context.quick ? 1 : Math.max(3, context.runs);
  const timing = await contest(
    [
      {
        name: 'gateway /ocr',
        run: async () => {
          await post(context.service.url, '/ocr', {
            sourceUrl: pageUrl,
            languages: ['eng', 'deu'],
            outputFormat: 'txt',
          });
        },
      },
      {
        name: 'tesseract CLI',
        run: async () => {
          await run('tesseract', [...cliArgs, ...cliConfig], { env });
        },
      },
    ],
    runs,
  );
  const gatewayMs = timing.times.get('gateway /ocr')!;
  const cliMs = timing.times.get('tesseract CLI')!;
  const ratio = pairedRatio(gatewayMs, cliMs);

  const peaks: number[] = [];
  for (let turn = 0; turn < (context.quick ? 1 : 3); turn += 1) {
    const { stderr } = await run('/usr/bin/time', ['-f', '%M', 'tesseract', ...cliArgs, ...cliConfig], {
      env,
    });
    peaks.push(Number(stderr.trim().split('\n').at(-1)) * 1024);
  }

  const accuracy: Array<[string, string, string, number]> = [];
  for (const [language, noisy] of [
    ['eng', false],
    ['deu', false],
    ['eng', true],
    ['deu', true],
  ] as const) {
    const name = `ocr-${language}${noisy ? '-noisy' : ''}.png`;
    const text = await readText(context, context.sources.add(file(name)), language);
    accuracy.push([
      language,
      noisy ? 'turned 1.5°, Gaussian noise' : 'clean',
      name,
      wordAccuracy(text, sampleText[language]),
    ]);
  }

  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  const budgets: Budget[] = [
    {
      name: 'OCR: a 300 dpi page through the gateway vs the Tesseract CLI',
      target: `≤ ${maxSlowdown}×`,
      measured: `${formatRatio(ratio)} (${formatMs(median(gatewayMs))} vs ${formatMs(median(cliMs))})`,
      met: ratio <= maxSlowdown,
    },
    ...accuracy.map(([language, kind, , value]) => {
      const target = kind === 'clean' ? 0.97 : 0.9;
      return {
        name: `OCR word accuracy, ${language}, ${kind}`,
        target: `≥ ${percent(target)}`,
        measured: percent(value),
        met: value >= target,
      };
    }),
  ];
  return {
    title: 'OCR (Tesseract)',
    tables: [
      {
        caption: `One page of text, 2480 × 3120 at 300 dpi, eng+deu, median of ${runs} runs`,
        head: ['Contender', 'Time per page', 'Peak memory (engine)'],
        rows: [
          ['gateway /ocr (download, decode, tesseract, answer)', formatMs(median(gatewayMs)), '—'],
          ['tesseract CLI (same options, one thread)', formatMs(median(cliMs)), formatBytes(median(peaks))],
        ],
      },
      {
        caption: 'Word accuracy (1 − word edit distance / reference words)',
        head: ['Language', 'Scan', 'Accuracy'],
        rows: accuracy.map(([language, kind, , value]) => [language, kind, percent(value)]),
      },
    ],
    budgets,
    notes: [
      'The route runs the same binary with the same options as the CLI line; what it adds is the download, the decode to PNG, the process start and the answer.',
    ],
  };
}
