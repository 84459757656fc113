import sharp from 'sharp';
import { withEncoder } from '#shared/image/encode.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { writePhoto } from './inputs.ts';
import {
  type Contender,
  contest,
  formatBytes,
  formatMs,
  formatPercent,
  formatRatio,
  median,
  pairedRatio,
  timed,
} from './measure.ts';
import { runTool } from './processes.ts';
import { notInstalled, type SectionResult } from './report.ts';
import { routeSettings } from './route-encoder.ts';
import { post } from './service.ts';

/**
 * Image routes against sharp called directly with the encoder settings the routes use (the bare
 * engine: the same sharp options, none of the service around them), and against ImageMagick. The
 * source is a 12 MP photo-like JPEG.
 */

const WIDTH = 4000;
const HEIGHT = 3000;

/** sharp as the routes open a JPEG: errors fail, pixel limit, EXIF orientation applied. */
const open = (path: string) =>
  sharp(path, { failOn: 'error', limitInputPixels: imageLimits.maxPixels }).autoOrient();

interface Operation {
  label: string;
  route: string;
  body: (sourceUrl: string) => Record<string, unknown>;
  bare: (source: string, output: string) => Promise<unknown>;
  magick: (source: string, output: string) => string[];
  extension: string;
}

const operations: Operation[] = [
  {
    label: 'convert JPEG → WebP (q 85)',
    route: '/image-convert',
    body: (sourceUrl) => ({ sourceUrl, outputFormat: 'webp' }),
    bare: (source, output) => withEncoder(open(source), 'webp', routeSettings(WIDTH * HEIGHT)).toFile(output),
    magick: (source, output) => [source, '-quality', '85', output],
    extension: 'webp',
  },
  {
    label: 'resize to 800 px wide, JPEG (q 85)',
    route: '/image-resize',
    body: (sourceUrl) => ({ sourceUrl, width: 800 }),
    bare: (source, output) =>
      withEncoder(
        open(source).resize({ width: 800, fit: 'inside', withoutEnlargement: true }),
        'jpg',
        routeSettings(800 * 600),
      ).toFile(output),
    magick: (source, output) => [source, '-resize', '800x', '-quality', '85', output],
    extension: 'jpg',
  },
];

/** Requests per second with `parallel` requests in flight, `total` in all. */
async function throughput(parallel: number, total: number, once: () => Promise<unknown>): Promise<number> {
  let left = total;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      await once();
    }
  };
  const { ms } = await timed(() => Promise.all(Array.from({ length: parallel }, worker)));
  return (total / ms) * 1000;
}

export async function benchImages(context: BenchContext): Promise<SectionResult> {
  const source = workFile(context, 'photo-12mp.jpg');
  await writePhoto(source, WIDTH, HEIGHT);
  const sourceUrl = context.sources.add(source);
  const { imagemagick } = context.tools;

  const latency = {
    caption: `Latency, median of ${context.runs} runs (source: ${WIDTH} × ${HEIGHT} JPEG, ${formatBytes(await sizeOf(source))})`,
    head: ['Operation', 'Contender', 'Time', 'vs bare sharp', 'Output'],
    rows: [] as string[][],
  };
  let convertOverhead = Number.NaN;
  for (const operation of operations) {
    const output = (name: string) => workFile(context, `image-${name}.${operation.extension}`);
    const contenders: Contender<number>[] = [
      {
        name: 'service',
        run: async () => (await post(context.service.url, operation.route, operation.body(sourceUrl))).bytes,
      },
      {
        name: 'sharp',
        run: async () => {
          await operation.bare(source, output('sharp'));
          return sizeOf(output('sharp'));
        },
      },
    ];
    if (imagemagick) {
      contenders.push({
        name: 'imagemagick',
        run: async () => {
          await runTool(imagemagick, operation.magick(source, output('magick')));
          return sizeOf(output('magick'));
        },
      });
    }
    const { times, results } = await contest(contenders, context.runs);
    const bare = times.get('sharp')!;
    const row = (label: string, name: string) => {
      const own = times.get(name)!;
      return [
        operation.label,
        label,
        formatMs(median(own)),
        name === 'sharp' ? '1.00×' : formatRatio(pairedRatio(own, bare)),
        formatBytes(results.get(name)),
      ];
    };
    latency.rows.push(row('service (local gateway)', 'service'), row('sharp in-process (bare)', 'sharp'));
    latency.rows.push(
      imagemagick ? row('ImageMagick', 'imagemagick') : notInstalled([operation.label, 'ImageMagick'], 5),
    );
    if (operation.route === '/image-convert') convertOverhead = pairedRatio(times.get('service')!, bare) - 1;
  }

  // Throughput: two requests in flight (one per core), against two sharp pipelines in flight.
  const convert = operations[0]!;
  const total = context.quick ? 6 : 12;
  let counter = 0;
  const bareOutput = () => workFile(context, `image-parallel-${counter++}.webp`);
  const serviceRates: number[] = [];
  const sharpRates: number[] = [];
  for (let round = 0; round < (context.quick ? 1 : 2); round += 1) {
    serviceRates.push(
      await throughput(2, total, () => post(context.service.url, convert.route, convert.body(sourceUrl))),
    );
    sharpRates.push(await throughput(2, total, () => convert.bare(source, bareOutput())));
  }
  const rate = (value: number) => `${value.toFixed(2)} images/s`;
  const throughputTable = {
    caption: `Throughput, 2 in flight, ${total} conversions (JPEG → WebP)`,
    head: ['Contender', 'Rate', 'vs bare sharp'],
    rows: [
      [
        'service (local gateway)',
        rate(median(serviceRates)),
        formatRatio(pairedRatio(serviceRates, sharpRates)),
      ],
      ['sharp in-process (bare)', rate(median(sharpRates)), '1.00×'],
    ],
  };

  return {
    title: 'Images',
    tables: [latency, throughputTable],
    budgets: [
      {
        name: 'Gateway overhead on image conversion',
        target: '≤ +10 % of bare sharp',
        measured: formatPercent(convertOverhead),
        met: Number.isNaN(convertOverhead) ? undefined : convertOverhead <= 0.1,
      },
    ],
    notes: [
      'The service time covers the whole request: HTTP to the gateway, the source downloaded over loopback to /tmp, ' +
        'format sniffing and header checks, the conversion, and the file streamed back. The bare sharp run reads the ' +
        'same file from disk with the encoder settings the route uses.',
    ],
  };
}
