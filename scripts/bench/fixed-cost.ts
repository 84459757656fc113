import sharp from 'sharp';
import { withEncoder } from '#shared/image/encode.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { writePhoto } from './inputs.ts';
import { contest, formatBytes, formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import { workersOf } from './processes.ts';
import type { Budget, SectionResult } from './report.ts';
import { routeSettings } from './route-encoder.ts';
import { post } from './service.ts';

/**
 * Issue 19, budget 1: the fixed cost of a file request. Small conversions, where the request
 * around the engine is most of the time: `/image-convert` through the local gateway against
 * sharp with the same encoder settings on the same bytes (read from disk), and, for the smallest
 * image, against a bare fetch of the source over loopback followed by sharp.
 */

interface Case {
  label: string;
  width: number;
  height: number;
  body: Record<string, unknown>;
  outWidth: number;
  target: 'jpg' | 'webp';
  quality: number;
  /** The bare contender also fetches the source over HTTP, as the service does. */
  fetches: boolean;
  budget: number;
}

const cases: Case[] = [
  {
    label: '1920 × 1080 JPEG → 720 px wide JPEG q 80 (mozjpeg)',
    width: 1920,
    height: 1080,
    body: { outputFormat: 'jpg', width: 720, quality: 80 },
    outWidth: 720,
    target: 'jpg',
    quality: 80,
    fetches: false,
    budget: 1.1,
  },
  {
    label: '320 × 240 JPEG → 200 px wide WebP',
    width: 320,
    height: 240,
    body: { outputFormat: 'webp', width: 200 },
    outWidth: 200,
    target: 'webp',
    quality: 80,
    fetches: true,
    budget: 1.3,
  },
];

/** What `/image-convert` does with these bodies: auto-orient, resize inside, the routes' encoder. */
function bare(input: string | Buffer, item: Case): Promise<Buffer> {
  const outHeight = Math.round((item.outWidth * item.height) / item.width);
  const settings = routeSettings(
    item.outWidth * outHeight,
    item.body.quality === undefined ? undefined : item.quality,
  );
  const image = sharp(input, { failOn: 'error', limitInputPixels: imageLimits.maxPixels })
    .autoOrient()
    .resize({ width: item.outWidth, fit: 'inside', withoutEnlargement: true });
  return withEncoder(image, item.target, settings).toBuffer();
}

/** How the service contenders reach the gateway: one kept-alive pool, or a connection per request. */
const connections = [
  { name: 'service, kept-alive connection', connection: 'kept alive' },
  { name: 'service, a connection per request', connection: 'one per request' },
] as const;

export async function benchFixedCost(context: BenchContext): Promise<SectionResult> {
  const runs = Math.max(context.runs, context.quick ? 7 : 15);
  const rows: string[][] = [];
  const budgets: Budget[] = [];
  for (const item of cases) {
    const source = workFile(context, `fixed-${item.width}x${item.height}.jpg`);
    await writePhoto(source, item.width, item.height);
    const sourceUrl = context.sources.add(source);
    const body = { sourceUrl, ...item.body };
    const bareName = item.fetches ? 'fetch + sharp' : 'sharp';
    // Worker processes the gateway starts during the runs: a warm worker serves every call, so
    // more than one (a call that comes while the last one still cleans up) means cold starts. A
    // worker ended after one contender's call is replaced on the next call, whichever that is, so
    // they are counted for the case, not per contender.
    await post(context.service.url, '/image-convert', body);
    const seen = new Set(await workersOf(context.service.pid, 'image-convert'));
    const firstWorkers = seen.size;
    const lookForNewWorkers = async () => {
      for (const pid of await workersOf(context.service.pid, 'image-convert')) seen.add(pid);
    };
    const { times, results } = await contest(
      [
        ...connections.map(({ name, connection }) => ({
          name,
          run: async () => (await post(context.service.url, '/image-convert', body, { connection })).bytes,
          after: lookForNewWorkers,
        })),
        {
          name: bareName,
          run: async () => {
            const input = item.fetches ? Buffer.from(await (await fetch(sourceUrl)).arrayBuffer()) : source;
            return (await bare(input, item)).length;
          },
        },
      ],
      runs,
    );
    const engine = times.get(bareName)!;
    const sourceSize = formatBytes(await sizeOf(source));
    connections.forEach(({ name }, index) => {
      const service = times.get(name)!;
      const ratio = pairedRatio(service, engine);
      rows.push([
        index === 0 ? item.label : '',
        name,
        formatMs(median(service)),
        formatRatio(ratio),
        formatBytes(results.get(name)),
        index === 0 ? String(seen.size - firstWorkers) : '',
      ]);
      budgets.push({
        name: `Fixed cost, ${name.replace('service, ', '')}: ${item.label}`,
        target: `≤ ${item.budget.toFixed(2)}× ${bareName}`,
        measured: `${formatRatio(ratio)} (${formatMs(median(service))} vs ${formatMs(median(engine))}; fixed ≈ ${formatMs(median(service) - median(engine))})`,
        met: Number.isNaN(ratio) ? undefined : ratio <= item.budget,
      });
    });
    rows.push([
      `(source ${sourceSize})`,
      `${bareName} (bare)`,
      formatMs(median(engine)),
      '1.00×',
      formatBytes(results.get(bareName)),
      '—',
    ]);
  }
  return {
    title: 'Fixed cost of a file request',
    tables: [
      {
        caption: `Small conversions, median of ${runs} interleaved runs after a warm-up`,
        head: ['Operation', 'Contender', 'Time', 'vs bare', 'Output', 'Workers started'],
        rows,
      },
    ],
    budgets,
    notes: [
      'The service time is the whole request: HTTP to the gateway and its worker, the source downloaded over ' +
        'loopback to /tmp, sniffing and header checks, the conversion and the file streamed back. The bare ' +
        'contender runs sharp in the benchmark process with the route encoder settings, on the file (first case) ' +
        'or on bytes fetched from the same source server (second case).',
      'The service is measured both on a kept-alive connection and on a connection of its own per request, ' +
        'closed by the client once it has read the answer, as curl does. "Workers started" counts the ' +
        "image-convert worker processes the gateway started during both service contenders' runs, after the " +
        'first: each is a cold start. A call that comes while the previous one still removes its workspace gets ' +
        'a second worker, as Lambda would give it; more than that means workers were ended.',
    ],
  };
}
