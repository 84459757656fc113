import { readdir, readFile, writeFile } from 'node:fs/promises';
import type { BenchContext } from './context.ts';
import { workFile } from './context.ts';
import { formatBytes, formatMs, median, timed } from './measure.ts';
import type { SectionResult } from './report.ts';
import { post } from './service.ts';

/**
 * The browser routes through the local gateway: the first call of each route (a new worker: its
 * init, Chromium's launch, the render), then warm calls one after another, pages per second of a
 * ten-page document, and the peak resident memory of the gateway's whole process tree (workers and
 * their browsers) while they run.
 */

const PAGES = 10;

/** The summed resident set of a process and all its descendants, from /proc. */
async function treeRss(root: number): Promise<number> {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = await readFile(`/proc/${entry}/status`, 'utf8');
      parents.set(Number(entry), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      rss.set(Number(entry), Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // The process ended while we looked.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let at = pid, hops = 0; at > 1 && hops < 64; at = parents.get(at) ?? 0, hops += 1) {
      if (at === root) return true;
    }
    return false;
  };
  let total = 0;
  for (const [pid, bytes] of rss) if (inTree(pid)) total += bytes;
  return total;
}

function watchTree(root: number) {
  let peak = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void treeRss(root)
      .then((bytes) => {
        peak = Math.max(peak, bytes);
      })
      .finally(() => {
        busy = false;
      });
  }, 100);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

const pagedHtml = Array.from(
  { length: PAGES },
  (_, index) =>
    `<section style="break-after: page"><h1>Section ${index + 1}</h1>${'<p>Lorem ipsum dolor sit amet, Ωμέγα, Привет, 你好. </p>'.repeat(12)}</section>`,
).join('');

const pagedMarkdown = Array.from(
  { length: PAGES },
  (_, index) =>
    `# Part ${index + 1}\n\n| a | b |\n|---|---|\n| ${index} | ${index * 2} |\n\n${'Some *text*. '.repeat(40)}\n`,
).join('\n');

export async function benchDocuments(context: BenchContext): Promise<SectionResult> {
  const page = workFile(context, 'page.html');
  await writeFile(page, `<!doctype html><meta charset="utf-8">${pagedHtml}`);
  const url = context.sources.add(page);
  const cases: Array<[string, string, Record<string, unknown>, number]> = [
    ['/html-to-pdf', `${PAGES} pages of HTML`, { html: pagedHtml }, PAGES],
    ['/url-to-pdf', `${PAGES} pages at a loopback URL`, { url }, PAGES],
    ['/markdown-to-pdf', `${PAGES} parts of Markdown`, { markdown: pagedMarkdown }, PAGES],
    ['/web-screenshot', 'the same page, 1280 × 800 PNG', { url, javascript: false }, 1],
  ];
  const rows: string[][] = [];
  for (const [path, what, body, pages] of cases) {
    // Workers of the routes before stay warm: count what this route's worker and browser add.
    const before = await treeRss(context.service.pid);
    const stop = watchTree(context.service.pid);
    const cold = await timed(() => post(context.service.url, path, body));
    const warm: number[] = [];
    for (let run = 0; run < context.runs; run += 1)
      warm.push((await timed(() => post(context.service.url, path, body))).ms);
    const peak = stop();
    const warmMs = median(warm);
    rows.push([
      path,
      what,
      formatMs(cold.ms),
      formatMs(warmMs),
      (pages / (warmMs / 1000)).toFixed(1),
      formatBytes(Math.max(0, peak - before)),
    ]);
  }
  return {
    title: 'Documents (browser routes)',
    tables: [
      {
        caption: `Through the local gateway; warm: median of ${context.runs} calls one after another`,
        head: [
          'Route',
          'Input',
          'Cold call',
          'Warm call',
          'Pages/s (warm)',
          'Peak RSS added (worker and browser)',
        ],
        rows,
      },
    ],
    budgets: [],
    notes: [
      'Cold: the first call of the route, in a new worker: its init, Chromium’s launch (unpacked once ' +
        "by npm run layer:chromium) and the render. The peak is the summed resident set of the gateway's " +
        "process tree, sampled every 100 ms, less what it held before the route's first call.",
    ],
  };
}
