import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type RouteSpec, routes } from '#shared/routes.ts';
import { bundleFolder, bundleFunction, bundleFunctions } from '../../infra/stack/bundle.ts';
import { type BenchContext, workFile } from './context.ts';
import { writeClip, writePhoto, writeReport } from './inputs.ts';
import { formatMs, median } from './measure.ts';
import { runTool } from './processes.ts';
import type { Budget, SectionResult } from './report.ts';

/**
 * Cold starts of the bundles that ship to Lambda (infra/stack/bundle.ts): their size, and in a
 * fresh process per run the module's import, its first call and a second one. sharp (native addon)
 * and pdfium (WebAssembly) are also loaded alone.
 */

const textFunctions = ['slugify', 'hash', 'encode', 'decode', 'text-case', 'text-stats'];

interface ColdRun {
  importMs: number;
  /** CPU time of the process during the import: steadier than wall time on a loaded machine. */
  importCpuMs?: number;
  firstCallMs?: number;
  firstCallCpuMs?: number;
  secondCallMs?: number;
  status?: number;
  loadMs?: number;
  loadCpuMs?: number;
  initMs?: number;
}

type LocalFiles = Record<'image' | 'pdf' | 'media', string>;

/** The route's example body with its remote sources replaced by local ones of the same kind. */
function localBody(route: RouteSpec, files: LocalFiles): unknown {
  const example = route.example;
  if (typeof example !== 'object' || example === null) return example;
  const kind = route.tag === 'PDF' ? 'pdf' : route.tag === 'Media' ? 'media' : 'image';
  const body = { ...(example as Record<string, unknown>) };
  if ('sourceUrl' in body) body.sourceUrl = files[kind];
  if (Array.isArray(body.sources)) {
    // image-to-pdf takes images, pdf-merge PDFs.
    body.sources = body.sources.map(() => files[route.function === 'image-to-pdf' ? 'image' : kind]);
  }
  return body;
}

/** The slowest function of a measurement, and how many functions are over the limit. */
function slowest(values: ReadonlyMap<string, number>, limit: number) {
  const sorted = [...values].filter(([, ms]) => Number.isFinite(ms)).sort((a, b) => b[1] - a[1]);
  const over = sorted.filter(([, ms]) => ms > limit);
  return { top: sorted[0], over };
}

/** What no function's cold start goes below, measured in the same run. */
interface Floor {
  /** Node starting and exiting with no module, wall. */
  nodeStartMs: number;
  /** CPU of importing zod, middy and its JSON body parser bundled as a function, with no handler code. */
  frameworkCpuMs: number;
  /** CPU of loading sharp's native addon alone. */
  sharpCpuMs: number;
  /** CPU of sharp's first conversion in a fresh process: image-convert's example on the same image. */
  sharpConversionCpuMs: number;
}

/**
 * Issue 19's cold-start budgets, judged on CPU time (the machine is shared; wall time there
 * measures the queue), beside the floor measured in the same run.
 */
function coldStartBudgets(
  importCpu: ReadonlyMap<string, number>,
  firstCallCpu: ReadonlyMap<string, number>,
  floor: Floor,
): Budget[] {
  const verdict = (
    name: string,
    limit: number,
    values: ReadonlyMap<string, number>,
    what: string,
    floorText: string,
  ): Budget => {
    const { top, over } = slowest(values, limit);
    if (!top) return { name, target: `≤ ${limit} ms`, measured: 'not measured', met: undefined };
    const overNames = over
      .slice(0, 6)
      .map(([fn]) => fn)
      .join(', ');
    return {
      name,
      target: `≤ ${limit} ms ${what}, every function`,
      measured:
        `slowest ${top[0]} ${formatMs(top[1])} CPU (${(top[1] / limit).toFixed(2)}× the budget); ` +
        `${over.length} of ${values.size} over${over.length > 0 ? ` (${overNames}${over.length > 6 ? ', …' : ''})` : ''}; ` +
        `floor: ${floorText}`,
      met: over.length === 0,
    };
  };
  return [
    verdict(
      'Cold start: module init',
      100,
      importCpu,
      '(import CPU, fresh process)',
      `Node's own start ${formatMs(floor.nodeStartMs)} wall, then zod, middy and its body parser alone ` +
        `${formatMs(floor.frameworkCpuMs)} CPU, plus sharp's load ${formatMs(floor.sharpCpuMs)} CPU in image functions`,
    ),
    verdict(
      'Cold start: first call',
      150,
      firstCallCpu,
      '(CPU of the first request)',
      `sharp alone, its first conversion of image-convert's example in a fresh process, ` +
        `${formatMs(floor.sharpConversionCpuMs)} CPU`,
    ),
  ];
}

export async function benchColdStart(context: BenchContext): Promise<SectionResult> {
  const all = [...new Set(routes.map((route) => route.function)), 'authorizer'].sort();
  // BENCH_COLD_FUNCTIONS=a,b measures only those functions (a short look at a change).
  const only = process.env.BENCH_COLD_FUNCTIONS?.split(',').map((name) => name.trim());
  const names = only ? all.filter((name) => only.includes(name)) : all;
  const outDir = workFile(context, 'bundles');
  const bundles = await bundleFunctions({ rootDir: context.rootDir, outDir, names });

  const image = workFile(context, 'cold-photo.jpg');
  const pdf = workFile(context, 'cold-report.pdf');
  const media = workFile(context, 'cold-clip.mp4');
  await writePhoto(image, 1200, 800);
  await writeReport(pdf, 8);
  await writeClip(media, 4);
  const files = {
    image: context.sources.add(image),
    pdf: context.sources.add(pdf),
    media: context.sources.add(media),
  };

  const env = {
    ...process.env,
    // As deployed: source maps on, and the sharp layer's node_modules on NODE_PATH.
    NODE_OPTIONS: '--enable-source-maps',
    NODE_PATH: join(context.rootDir, 'node_modules'),
    SOURCE_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'silent',
    // What the stack sets: the authorizer's deployment name and a region for the AWS clients.
    API_KEY_DEPLOYMENT: 'bench',
    AWS_REGION: 'us-east-1',
  };
  const child = async (args: string[]): Promise<ColdRun> => {
    const { stdout } = await runTool(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', 'scripts/bench/cold-child.ts', ...args],
      { cwd: context.rootDir, env },
    );
    const line = stdout.split('\n').find((text) => text.startsWith('COLD '));
    if (!line) throw new Error(`no measurement from cold-child ${args[0]}: ${stdout.slice(-300)}`);
    return JSON.parse(line.slice(5)) as ColdRun;
  };
  const runs = context.quick ? 3 : 5;
  const repeat = async (args: string[]) => {
    const results: ColdRun[] = [];
    for (let run = 0; run < runs; run += 1) results.push(await child(args));
    return results;
  };
  const med = (results: ColdRun[], field: keyof ColdRun) => {
    const values = results.map((result) => result[field]).filter((value) => value !== undefined);
    return values.length > 0 ? median(values) : Number.NaN;
  };

  const rows: string[][] = [];
  const importTimes = new Map<string, number>();
  const importCpu = new Map<string, number>();
  const firstCallCpu = new Map<string, number>();
  for (const name of names) {
    const bundle = bundles.get(name)!;
    const code = (await stat(join(outDir, bundleFolder(name), 'index.mjs'))).size;
    const route = routes.find((entry) => entry.function === name);
    const callable =
      route && !route.path.includes('{') && (route.method === 'GET' || route.example !== undefined);
    const request = callable
      ? JSON.stringify({
          method: route.method,
          path: route.path,
          body: localBody(route, files),
        })
      : undefined;
    let results: ColdRun[];
    try {
      results = await repeat(['handler', join(bundle.dir, 'index.mjs'), ...(request ? [request] : [])]);
    } catch (error) {
      rows.push([
        name,
        `${Math.round(code / 1024)} KB`,
        '—',
        '—',
        `failed: ${String(error).slice(0, 120)}`,
        '—',
        '—',
      ]);
      continue;
    }
    const failed = results.find((result) => result.status !== undefined && result.status !== 200);
    importTimes.set(name, med(results, 'importMs'));
    importCpu.set(name, med(results, 'importCpuMs'));
    if (request && !failed) firstCallCpu.set(name, med(results, 'firstCallCpuMs'));
    rows.push([
      name,
      `${Math.round(code / 1024)} KB`,
      `${Math.round(bundle.sizeBytes / 1024)} KB`,
      bundle.layers.join(', ') || '—',
      `${formatMs(med(results, 'importMs'))} (${formatMs(med(results, 'importCpuMs'))} CPU)`,
      request
        ? `${formatMs(med(results, 'firstCallMs'))} (${formatMs(med(results, 'firstCallCpuMs'))} CPU)${failed ? ` (HTTP ${failed.status})` : ''}`
        : '—',
      request ? formatMs(med(results, 'secondCallMs')) : '—',
    ]);
  }

  const sharpRuns = await repeat(['sharp']);
  const sharpConversions = await repeat(['sharp-convert', image, workFile(context, 'cold-floor.webp')]);
  const pdfiumRuns = await repeat(['pdfium']);
  const floorImport = async (name: string) => {
    const floorBundle = await bundleFunction(
      context.rootDir,
      workFile(context, 'floor'),
      name,
      join(context.rootDir, 'scripts/bench/floor', `${name}.ts`),
    );
    return med(await repeat(['handler', join(floorBundle.dir, 'index.mjs')]), 'importCpuMs');
  };
  const frameworkCpuMs = await floorImport('zod-middy');
  const miniCpuMs = await floorImport('zod-mini-middy');
  const emptyStarts: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    emptyStarts.push((await runTool(process.execPath, ['-e', ''], { env })).ms);
  }

  const measuredText = textFunctions.filter((name) => names.includes(name));
  const textSizes = measuredText.map(async (name) => ({
    name,
    bytes: (await stat(join(outDir, bundleFolder(name), 'index.mjs'))).size,
  }));
  const largestText = (await Promise.all(textSizes)).sort((a, b) => b.bytes - a.bytes)[0];
  const slowestText = measuredText
    .map((name) => ({ name, ms: importTimes.get(name) ?? Number.NaN }))
    .sort((a, b) => b.ms - a.ms)[0];
  const budgets: Budget[] = [
    {
      name: 'Text function bundle',
      target: '≤ 300 KB (index.mjs)',
      measured: largestText
        ? `${Math.round(largestText.bytes / 1024)} KB (largest: ${largestText.name})`
        : 'not measured',
      met: largestText ? largestText.bytes <= 300 * 1024 : undefined,
    },
    {
      name: 'Text function module init',
      target: '≤ 100 ms (import, fresh process)',
      measured: slowestText ? `${formatMs(slowestText.ms)} (slowest: ${slowestText.name})` : 'not measured',
      met: slowestText ? slowestText.ms <= 100 : undefined,
    },
    ...coldStartBudgets(importCpu, firstCallCpu, {
      nodeStartMs: median(emptyStarts),
      frameworkCpuMs,
      sharpCpuMs: med(sharpRuns, 'loadCpuMs'),
      sharpConversionCpuMs: med(sharpConversions, 'firstCallCpuMs'),
    }),
  ];

  return {
    title: 'Cold start',
    tables: [
      {
        caption: `Bundles and module initialisation, median of ${runs} fresh processes each`,
        head: [
          'Function',
          'index.mjs',
          'Folder (with map, packages)',
          'Layers',
          'Import',
          'First call',
          'Second call',
        ],
        rows,
      },
      {
        caption: `Engines loaded alone, median of ${runs} fresh processes`,
        head: ['What', 'Time'],
        rows: [
          ['Node start and exit (no module), wall', formatMs(median(emptyStarts))],
          [
            'sharp: require (native addon, libvips)',
            `${formatMs(med(sharpRuns, 'loadMs'))} (${formatMs(med(sharpRuns, 'loadCpuMs'))} CPU)`,
          ],
          [
            "sharp: first conversion in the process, image-convert's example (1200 × 800 JPEG → 800 px WebP q80)",
            `${formatMs(med(sharpConversions, 'firstCallMs'))} (${formatMs(med(sharpConversions, 'firstCallCpuMs'))} CPU)`,
          ],
          [
            'zod, middy and its JSON body parser bundled as a function, no handler code: import CPU',
            formatMs(frameworkCpuMs),
          ],
          ['the same with zod/mini instead of zod: import CPU', formatMs(miniCpuMs)],
          ['pdfium: require (JS)', formatMs(med(pdfiumRuns, 'importMs'))],
          [
            'pdfium: PDFiumLibrary.init (WebAssembly compile and instantiate)',
            formatMs(med(pdfiumRuns, 'initMs')),
          ],
        ],
      },
    ],
    budgets,
    notes: [
      'Import is the module evaluation Lambda runs at init (NODE_OPTIONS=--enable-source-maps as deployed; sharp ' +
        'from NODE_PATH as from its layer). First call: one request on a small local source (a 1200 × 800 JPEG, an 8-page ' +
        'PDF, a 4 s clip) through the same handler, including lazy loads such as pdfium; routes with a path ' +
        'parameter or the authorizer are imported only. The folder is what is zipped: code, source map and the ' +
        'packages copied next to it.',
      'The floor: every POST function imports zod (`import * as z`), middy and its JSON body parser; scripts/bench/floor/ bundles ' +
        'them with no handler code, as a function is bundled. What a function imports above that is its own code ' +
        'and, for image functions, sharp.',
    ],
  };
}
