import { readFile, rm } from 'node:fs/promises';
import { ffmpegPath } from '#shared/media/binaries.ts';
import { ffmpegArguments } from '#shared/media/run.ts';
import { pdfLimits } from '#shared/pdf/limits.ts';
import { imageConvertRoute } from '#shared/routes/image.ts';
import { videoConvertRoute, videoExtractAudioRoute } from '#shared/routes/media.ts';
import { pdfCompressRoute, pdfSplitRoute, pdfToImageRoute } from '#shared/routes/pdf.ts';
import { slugifyRoute } from '#shared/routes/text.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { costTable } from './cost.ts';
import { audioPlan, videoPlan } from './ffmpeg-command.ts';
import { writeClip, writeLooped, writePhoto, writeReport } from './inputs.ts';
import { formatBytes, formatMs, formatRatio, median, timed } from './measure.ts';
import { descendantsOf, runTool, statusOf, watchPeak } from './processes.ts';
import type { Budget, SectionResult } from './report.ts';
import { post, startService } from './service.ts';

/**
 * Budget 5 of issue 19: peak memory per operation in the isolated workers of the local gateway,
 * against the single best tool in a process of its own. The section starts a gateway of its own
 * with LOCAL_ISOLATION=workers (what `npm start` runs), whatever the environment says, finds the
 * worker process that serves the function, and reads the high-water mark of its process tree.
 */

/** The current resident set (VmRSS) of a process. */
const rssOf = async (pid: number) => {
  const match = /^VmRSS:\s+(\d+) kB/m.exec((await statusOf(pid)) ?? '');
  return match ? Number(match[1]) * 1024 : 0;
};

/** The gateway's worker processes for one function: `node … worker.ts <function> <memory>`. */
async function workersOf(gatewayPid: number, functionName: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await descendantsOf(gatewayPid)) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    const at = argv.findIndex((arg) => arg.endsWith('/worker.ts'));
    if (at >= 0 && argv[at + 1] === functionName) found.push(pid);
  }
  return found;
}

/** A fresh Node process running one memory-child mode: its exact peak (maxrss) and time. */
async function inFreshNode(context: BenchContext, args: string[]) {
  const run = await runTool(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', 'scripts/bench/memory-child.ts', ...args],
    { cwd: context.rootDir },
  );
  const last = run.stdout.trim().split('\n').at(-1) ?? '{}';
  return { ms: run.ms, peak: (JSON.parse(last) as { maxRssBytes: number }).maxRssBytes };
}

/** A tool under /usr/bin/time: its exact peak (maxrss, kB on the last line of stderr). */
async function underTime(command: string, args: string[]) {
  const run = await runTool('/usr/bin/time', ['-f', '%M', command, ...args]);
  const kb = Number(run.stderr.trim().split('\n').at(-1));
  return { ms: run.ms, peak: kb * 1024 };
}

interface Series {
  ms: number[];
  peak: number[];
}

const summary = (series: Series) => ({
  ms: median(series.ms),
  peak: median(series.peak),
  worst: Math.max(...series.peak),
  /** The first request after the worker's init: nothing left over from an earlier conversion. */
  first: { ms: series.ms[0] ?? Number.NaN, peak: series.peak[0] ?? Number.NaN },
});

export async function benchMemoryOps(context: BenchContext): Promise<SectionResult> {
  const { qpdf } = context.tools;
  const runs = Math.max(3, Math.min(context.runs, 5));
  const file = (name: string) => workFile(context, name);
  const service = await startService(context.rootDir, { LOCAL_ISOLATION: 'workers' });
  const rows: string[][] = [];
  const budgets: Budget[] = [];
  const notes: string[] = [];
  const measured: Record<string, { ms: number; worst: number }> = {};
  try {
    const missingUrl = (url: string) => `${new URL(url).origin}/not-there`;

    /**
     * The worker that serves `route`: started by a request whose source is missing (answered 4xx
     * after the handler has loaded), so that its idle resident set is the floor of the function.
     */
    const primeWorker = async (route: string, functionName: string, body: Record<string, unknown>) => {
      await post(service.url, route, body).catch(() => undefined);
      const [pid, ...others] = await workersOf(service.pid, functionName);
      if (pid === undefined || others.length > 0) {
        throw new Error(`expected one ${functionName} worker, found ${others.length + (pid ? 1 : 0)}`);
      }
      return { pid, idle: await rssOf(pid) };
    };
    /** Runs the request `runs` times on that worker; each peak is its tree's high-water mark. */
    const throughWorker = async (
      pid: number,
      functionName: string,
      route: string,
      body: Record<string, unknown>,
      times = runs,
    ) => {
      const series: Series = { ms: [], peak: [] };
      for (let run = 0; run < times; run += 1) {
        const watcher = watchPeak(pid);
        await watcher.reset();
        const { ms } = await timed(() => post(service.url, route, body));
        const peak = await watcher.stop();
        const now = await workersOf(service.pid, functionName);
        if (now.length !== 1 || now[0] !== pid) {
          throw new Error(
            `${route}: its worker ${pid} changed in run ${run + 1} (now: ${now.join(', ') || 'none'}); ` +
              `gateway: ${service.recentErrors().at(-1) ?? 'no error logged'}`,
          );
        }
        series.ms.push(ms);
        series.peak.push(peak.ownBytes + peak.childBytes);
      }
      return summary(series);
    };
    const repeat = async (work: () => Promise<{ ms: number; peak: number }>) => {
      const series: Series = { ms: [], peak: [] };
      for (let run = 0; run < runs; run += 1) {
        const result = await work();
        series.ms.push(result.ms);
        series.peak.push(result.peak);
      }
      return summary(series);
    };
    const row = (input: string, operation: string, contender: string, s: ReturnType<typeof summary>) => [
      input,
      operation,
      contender,
      formatMs(s.ms),
      formatBytes(s.peak),
      formatBytes(s.worst),
    ];
    const firstRow = (input: string, operation: string, contender: string, s: ReturnType<typeof summary>) => [
      input,
      operation,
      contender,
      formatMs(s.first.ms),
      formatBytes(s.first.peak),
      '(one run)',
    ];
    /** A row whose measurement failed: it costs that row only, not the section's budgets. */
    const failedRow = (input: string, operation: string, contender: string, error: unknown) => [
      input,
      operation,
      contender,
      `failed: ${(error instanceof Error ? error.message : String(error)).slice(0, 400)}`,
      '—',
      '—',
    ];
    const floor = await repeat(() => inFreshNode(context, ['node']));
    rows.push(row('—', 'nothing (Node 24 starts and exits)', 'fresh Node process', floor));

    // Budget 5, first half: a 50 MP JPEG → WebP.
    const photo = file('ops-photo-50mp.jpg');
    await writePhoto(photo, 8660, 5774, 4);
    const photoLabel = `50 MP JPEG (${formatBytes(await sizeOf(photo))})`;
    const photoUrl = context.sources.add(photo);
    const large = context.quick ? undefined : { path: file('ops-photo-100mp.jpg'), label: '', url: '' };
    if (large) {
      await writePhoto(large.path, 10_000, 10_000, 4);
      large.label = `100 MP JPEG (${formatBytes(await sizeOf(large.path))})`;
      large.url = context.sources.add(large.path);
    }
    const image = await primeWorker('/image-convert', 'image-convert', {
      sourceUrl: missingUrl(photoUrl),
      outputFormat: 'webp',
    });
    rows.push([
      photoLabel,
      'none (idle after init)',
      'image-convert worker',
      '—',
      formatBytes(image.idle),
      '—',
    ]);
    const viaGateway = await throughWorker(image.pid, 'image-convert', '/image-convert', {
      sourceUrl: photoUrl,
      outputFormat: 'webp',
    });
    rows.push(
      row(photoLabel, '→ WebP', 'image-convert worker (tree)', viaGateway),
      firstRow(photoLabel, '→ WebP', 'image-convert worker, first request', viaGateway),
    );
    measured['image-50mp'] = viaGateway;
    // The contract's largest image, 100 MP a frame, once, to size the function from: on the same
    // worker before it goes idle (the pool ends a worker after a minute without work).
    if (large) {
      const once = await throughWorker(
        image.pid,
        'image-convert',
        '/image-convert',
        { sourceUrl: large.url, outputFormat: 'webp' },
        1,
      );
      rows.push(row(large.label, '→ WebP (once)', 'image-convert worker (tree)', once));
      measured['image-100mp'] = once;
      await rm(large.path);
    }
    const bareSharp = await repeat(() =>
      inFreshNode(context, ['sharp-webp', photo, file('ops-photo-bare.webp')]),
    );
    rows.push(row(photoLabel, '→ WebP', 'sharp in a fresh Node process', bareSharp));
    const imageRatio = viaGateway.peak / bareSharp.peak;
    budgets.push({
      name: 'Memory: 50 MP JPEG → WebP in a gateway worker',
      target: '≤ 1.2× the peak of sharp alone in a fresh process',
      measured: `${formatRatio(imageRatio)} (${formatBytes(viaGateway.peak)} vs ${formatBytes(bareSharp.peak)}); first request on a fresh worker ${formatRatio(viaGateway.first.peak / bareSharp.peak)}; idle worker ${formatBytes(image.idle)}`,
      met: imageRatio <= 1.2,
    });
    await rm(photo);

    // Budget 5, second half: splitting a 300-page PDF.
    const book = file('ops-report-300.pdf');
    await writeReport(book, 300);
    const bookLabel = `300-page PDF (${formatBytes(await sizeOf(book))})`;
    const bookUrl = context.sources.add(book);
    const pdf = await primeWorker('/pdf-split', 'pdf-split', { sourceUrl: missingUrl(bookUrl) });
    rows.push([bookLabel, 'none (idle after init)', 'pdf-split worker', '—', formatBytes(pdf.idle), '—']);
    const everyPage = await throughWorker(pdf.pid, 'pdf-split', '/pdf-split', { sourceUrl: bookUrl });
    rows.push(
      row(bookLabel, 'split: every page (ZIP of 300)', 'pdf-split worker (tree)', everyPage),
      firstRow(bookLabel, 'split: every page (ZIP of 300)', 'pdf-split worker, first request', everyPage),
    );
    const halves = await throughWorker(pdf.pid, 'pdf-split', '/pdf-split', {
      sourceUrl: bookUrl,
      ranges: '1-150,151-300',
    });
    rows.push(row(bookLabel, 'split: 1-150,151-300', 'pdf-split worker (tree)', halves));
    const bareSplit = await repeat(() => inFreshNode(context, ['split', book]));
    rows.push(row(bookLabel, 'split: every page', "the route's splitPdf in a fresh Node process", bareSplit));
    const bareLoad = await repeat(() => inFreshNode(context, ['pdf-lib-load', book]));
    rows.push(row(bookLabel, 'load only', 'pdf-lib in a fresh Node process', bareLoad));
    measured['pdf-split-300'] = everyPage;
    // The other PDF functions on the same document, to size them from (no budget of their own).
    const others = [
      { functionName: 'pdf-compress', operation: 'compress (medium)', body: {}, key: 'pdf-compress-300' },
      {
        functionName: 'pdf-to-image',
        operation: 'rasterize all pages, 36 dpi',
        body: { dpi: 36 },
        key: 'pdf-to-image-300',
      },
    ];
    for (const { functionName, operation, body, key } of others) {
      const route = `/${functionName}`;
      // A failure here costs its rows only, not the section's budgets.
      try {
        const worker = await primeWorker(route, functionName, { sourceUrl: missingUrl(bookUrl), ...body });
        rows.push([
          bookLabel,
          'none (idle after init)',
          `${functionName} worker`,
          '—',
          formatBytes(worker.idle),
          '—',
        ]);
        const result = await throughWorker(
          worker.pid,
          functionName,
          route,
          { sourceUrl: bookUrl, ...body },
          3,
        );
        rows.push(row(bookLabel, operation, `${functionName} worker (tree), 3 runs`, result));
        measured[key] = result;
      } catch (error) {
        rows.push(failedRow(bookLabel, operation, `${functionName} worker`, error));
      }
    }
    if (qpdf) {
      const qpdfSplit = await repeat(async () => {
        const result = await underTime(qpdf, ['--split-pages', book, file('ops-book-%d.pdf')]);
        await runTool('sh', ['-c', `rm -f ${JSON.stringify(context.workDir)}/ops-book-*.pdf`]);
        return result;
      });
      rows.push(row(bookLabel, 'split: every page', 'qpdf --split-pages', qpdfSplit));
      const qpdfHalves = await repeat(async () => {
        const first = await underTime(qpdf, [book, '--pages', book, '1-150', '--', file('ops-half-1.pdf')]);
        const second = await underTime(qpdf, [
          book,
          '--pages',
          book,
          '151-300',
          '--',
          file('ops-half-2.pdf'),
        ]);
        return { ms: first.ms + second.ms, peak: Math.max(first.peak, second.peak) };
      });
      rows.push(row(bookLabel, 'split: 1-150,151-300', 'qpdf --pages (twice)', qpdfHalves));
      const ratio = everyPage.peak / qpdfSplit.peak;
      budgets.push({
        name: 'Memory: split a 300-page PDF in a gateway worker',
        target: "≤ 4× qpdf's peak, or what holds the rest",
        measured:
          `${formatRatio(ratio)} (${formatBytes(everyPage.peak)} vs ${formatBytes(qpdfSplit.peak)}); ` +
          `floor: Node alone ${formatBytes(floor.peak)}, idle worker ${formatBytes(pdf.idle)}; ` +
          `work above the idle worker ${formatBytes(everyPage.peak - pdf.idle)}, of which pdf-lib's load ${formatBytes(bareLoad.peak - floor.peak)}`,
        met: ratio <= 4,
      });
    } else {
      budgets.push({
        name: 'Memory: split a 300-page PDF in a gateway worker',
        target: "≤ 4× qpdf's peak",
        measured: 'qpdf not installed',
        met: undefined,
      });
    }
    await rm(book);

    // The contract's largest document (pdfLimits.maxPages), split once, to size pdf-split from.
    // The worker is primed again: the one above may have ended while the others ran.
    if (!context.quick) {
      const limit = file('ops-report-2000.pdf');
      await writeReport(limit, pdfLimits.maxPages);
      const limitLabel = `${pdfLimits.maxPages}-page PDF (${formatBytes(await sizeOf(limit))})`;
      const limitUrl = context.sources.add(limit);
      const half = pdfLimits.maxPages / 2;
      try {
        const splitter = await primeWorker('/pdf-split', 'pdf-split', { sourceUrl: missingUrl(limitUrl) });
        const once = await throughWorker(
          splitter.pid,
          'pdf-split',
          '/pdf-split',
          { sourceUrl: limitUrl, ranges: `1-${half},${half + 1}-` },
          1,
        );
        rows.push(row(limitLabel, 'split: two halves (once)', 'pdf-split worker (tree)', once));
        measured['pdf-split-limit'] = once;
      } catch (error) {
        rows.push(failedRow(limitLabel, 'split: two halves', 'pdf-split worker', error));
      }
      await rm(limit);
    }

    // The media functions, to size them from (no budget of their own): the worker's tree, which
    // holds ffmpeg, against the command the route plans run alone.
    const clip = file('ops-clip-720p.mp4');
    const long = file('ops-long-720p.mp4');
    await writeClip(clip, 10);
    await writeLooped(clip, long, 6);
    const media = [
      {
        functionName: 'video-convert',
        input: `10 s 720p H.264 (${formatBytes(await sizeOf(clip))})`,
        operation: '→ mp4 (re-encode, medium)',
        source: clip,
        body: { outputFormat: 'mp4', quality: 'medium' },
        plan: videoPlan({ outputFormat: 'mp4', quality: 'medium' }),
        output: 'ops-bare-video.mp4',
      },
      {
        functionName: 'video-extract-audio',
        input: `60 s 720p H.264 (${formatBytes(await sizeOf(long))})`,
        operation: 'extract audio → mp3',
        source: long,
        body: { outputFormat: 'mp3' },
        plan: audioPlan({ outputFormat: 'mp3' }),
        output: 'ops-bare-audio.mp3',
      },
    ];
    for (const entry of media) {
      const route = `/${entry.functionName}`;
      const sourceUrl = context.sources.add(entry.source);
      try {
        const worker = await primeWorker(route, entry.functionName, {
          sourceUrl: missingUrl(sourceUrl),
          ...entry.body,
        });
        const result = await throughWorker(
          worker.pid,
          entry.functionName,
          route,
          { sourceUrl, ...entry.body },
          3,
        );
        rows.push(row(entry.input, entry.operation, `${entry.functionName} worker (tree), 3 runs`, result));
        const job = await entry.plan(entry.source, file(entry.output));
        rows.push(
          row(
            entry.input,
            entry.operation,
            'ffmpeg alone, the same command',
            await repeat(() => underTime(ffmpegPath, ffmpegArguments(job))),
          ),
        );
        measured[entry.functionName] = result;
      } catch (error) {
        rows.push(failedRow(entry.input, entry.operation, `${entry.functionName} worker`, error));
      }
    }
    await rm(clip);
    await rm(long);

    // A text function: its idle worker is the floor of every small JSON route.
    const text = await primeWorker('/slugify', 'slugify', { text: 'Héllo Wörld!' });
    rows.push([
      'short text',
      'none (idle after one request)',
      'slugify worker',
      '—',
      formatBytes(text.idle),
      '—',
    ]);
    const slug = await throughWorker(
      text.pid,
      'slugify',
      '/slugify',
      { text: 'Héllo Wörld! '.repeat(5000) },
      3,
    );
    rows.push(row('60 KB of text', 'slugify', 'slugify worker (tree), 3 runs', slug));
    measured.slugify = slug;

    notes.push(
      `Median and worst of ${runs} runs. Worker: the gateway's worker process for the function ` +
        '(LOCAL_ISOLATION=workers), its high-water mark (VmHWM) restarted before each request, plus ' +
        'the largest peak of any process it starts (sampled every 20 ms). Fresh processes report their ' +
        'own maxrss (getrusage; /usr/bin/time for qpdf), exact. The idle worker is the resident set ' +
        'after its handler loaded and answered one request whose source was missing.',
    );
  } finally {
    await service.stop();
  }

  const cost = costTable(
    [
      {
        family: 'images',
        request: '50 MP JPEG → WebP',
        route: imageConvertRoute,
        measured: measured['image-50mp'],
      },
      {
        family: 'images',
        request: '100 MP JPEG → WebP',
        route: imageConvertRoute,
        measured: measured['image-100mp'],
      },
      {
        family: 'PDF',
        request: 'split 300 pages',
        route: pdfSplitRoute,
        measured: measured['pdf-split-300'],
      },
      {
        family: 'PDF',
        request: `split ${pdfLimits.maxPages} pages in two`,
        route: pdfSplitRoute,
        measured: measured['pdf-split-limit'],
      },
      {
        family: 'PDF',
        request: 'compress 300 pages',
        route: pdfCompressRoute,
        measured: measured['pdf-compress-300'],
      },
      {
        family: 'PDF',
        request: 'rasterize 300 pages, 36 dpi',
        route: pdfToImageRoute,
        measured: measured['pdf-to-image-300'],
      },
      {
        family: 'media',
        request: '10 s 720p → mp4',
        route: videoConvertRoute,
        measured: measured['video-convert'],
      },
      {
        family: 'media',
        request: '60 s 720p → mp3',
        route: videoExtractAudioRoute,
        measured: measured['video-extract-audio'],
      },
      { family: 'text', request: 'slugify 60 KB', route: slugifyRoute, measured: measured.slugify },
    ].filter((entry) => entry.measured !== undefined) as Parameters<typeof costTable>[0],
  );
  return {
    title: 'Memory per operation in the gateway workers',
    tables: [
      {
        caption: 'Peak resident memory per operation (worker process tree against a fresh process)',
        head: ['Input', 'Operation', 'Contender', 'Time', 'Peak RSS (median)', 'Peak RSS (worst)'],
        rows,
      },
      cost.table,
    ],
    budgets,
    notes: [...notes, ...cost.notes],
  };
}
