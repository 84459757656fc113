/**
 * `npm run bench`: measures every route family through the local gateway against the bare engines
 * and the usual alternatives, cold starts and memory, and prints Markdown tables with a verdict per
 * budget (docs/benchmarks.md).
 *
 *   npm run bench                      # everything, about 10 minutes on 2 cores
 *   npm run bench -- --quick           # fewer runs, shorter clips: a few minutes
 *   npm run bench -- --only images,text --runs 7 --json results.json
 *   npm run bench -- --only pdf-bytes      # one section: compress vs Ghostscript, merge vs qpdf
 *   npm run bench -- --only pdf-crypt      # protect and unlock vs qpdf
 *   npm run bench -- --only data-tools     # data and crypto routes vs a bare middy handler
 *
 * Inputs are generated into a temporary folder and deleted at the end. Not part of `npm test`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchColdStart } from './cold-start.ts';
import { type BenchContext, findTools } from './context.ts';
import { benchDataTools } from './data-tools.ts';
import { benchDocuments } from './documents.ts';
import { benchFixedCost } from './fixed-cost.ts';
import { benchImages } from './image.ts';
import { benchImageTools } from './image-tools.ts';
import { benchMedia } from './media.ts';
import { benchMediaTools } from './media-tools.ts';
import { benchMemory } from './memory.ts';
import { benchMemoryOps } from './memory-ops.ts';
import { benchOcr } from './ocr.ts';
import { benchPdf } from './pdf.ts';
import { benchPdfBytes } from './pdf-bytes.ts';
import { benchPdfCrypt } from './pdf-crypt.ts';
import { benchPdfDraw } from './pdf-draw.ts';
import { type Budget, renderBudgets, renderSection, type SectionResult } from './report.ts';
import { closeClient, startService, startSourceServer } from './service.ts';
import { describeMachine, loadNote } from './system.ts';
import { benchText } from './text.ts';

const sections: Record<string, (context: BenchContext) => Promise<SectionResult>> = {
  images: benchImages,
  'fixed-cost': benchFixedCost,
  'image-tools': benchImageTools,
  pdf: benchPdf,
  'pdf-bytes': benchPdfBytes,
  'pdf-crypt': benchPdfCrypt,
  'pdf-draw': benchPdfDraw,
  media: benchMedia,
  'media-tools': benchMediaTools,
  documents: benchDocuments,
  ocr: benchOcr,
  text: benchText,
  'data-tools': benchDataTools,
  'cold-start': benchColdStart,
  memory: benchMemory,
  'memory-ops': benchMemoryOps,
};

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    runs: { type: 'string' },
    json: { type: 'string' },
  },
});
const chosen = args.only ? args.only.split(',').map((name) => name.trim()) : Object.keys(sections);
const unknown = chosen.filter((name) => !(name in sections));
if (unknown.length > 0) {
  throw new Error(`Unknown section ${unknown.join(', ')}; choose from ${Object.keys(sections).join(', ')}`);
}

const rootDir = fileURLToPath(new URL('../../', import.meta.url));
const quick = args.quick === true;
const runs = args.runs ? Number(args.runs) : quick ? 3 : 5;
if (!(Number.isInteger(runs) && runs > 0)) throw new Error('--runs must be a positive whole number');
const print = (text: string) => process.stdout.write(`${text}\n`);

const tools = await findTools();
const startedAt = new Date();
print(`# Benchmark run${quick ? ' (quick)' : ''}\n`);
print(await describeMachine(tools, startedAt));

const workDir = await mkdtemp(join(tmpdir(), 'bench-'));
const removeWork = () => rm(workDir, { recursive: true, force: true });
process.once('SIGINT', () => void removeWork().finally(() => process.exit(130)));
const sources = await startSourceServer();
const service = await startService(rootDir).catch(async (error: unknown) => {
  await sources.stop();
  await removeWork();
  throw error;
});
const context: BenchContext = { quick, runs, rootDir, workDir, tools, sources, service };
const results: SectionResult[] = [];
const budgets: Budget[] = [];
try {
  for (const name of chosen) {
    const started = performance.now();
    try {
      const result = await sections[name]!(context);
      results.push(result);
      budgets.push(...result.budgets);
      print(renderSection(result));
    } catch (error) {
      print(
        `## ${name}\n\nFailed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    print(`_${name}: ${((performance.now() - started) / 1000).toFixed(0)} s_\n`);
  }
  print(renderBudgets(budgets));
  print(`\n${loadNote(startedAt)}`);
  if (args.json) {
    await writeFile(args.json, `${JSON.stringify({ startedAt, quick, runs, results }, null, 2)}\n`);
  }
} finally {
  closeClient();
  await service.stop();
  await sources.stop();
  await removeWork();
}
