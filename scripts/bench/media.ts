import { ffmpegPath } from '#shared/media/binaries.ts';
import { ffmpegArguments } from '#shared/media/run.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { audioPlan, type Plan, videoPlan } from './ffmpeg-command.ts';
import { writeClip, writeLooped } from './inputs.ts';
import { contest, formatBytes, formatMs, formatRatio, median, pairedRatio, timed } from './measure.ts';
import { runTool } from './processes.ts';
import type { Budget, SectionResult, Table } from './report.ts';
import { post } from './service.ts';

/**
 * Media routes against the ffmpeg binary running the very command the route plans (the bare
 * engine), and against ffmpeg's default settings for the same target.
 */

interface Operation {
  label: string;
  route: string;
  source: string;
  seconds: number;
  body: Record<string, unknown>;
  plan: Plan;
  output: string;
  /** ffmpeg with nothing but input and output named; absent where that is the bare command itself. */
  defaults?: string[];
  budget?: { name: string; times: number };
}

const speed = (seconds: number, ms: number) => `${(seconds / (ms / 1000)).toFixed(1)}× real time`;

export async function benchMedia(context: BenchContext): Promise<SectionResult> {
  const clipSeconds = context.quick ? 4 : 10;
  const loops = context.quick ? 3 : 6;
  const clip = workFile(context, 'clip-720p.mp4');
  const long = workFile(context, 'long-720p.mp4');
  await writeClip(clip, clipSeconds);
  await writeLooped(clip, long, loops);
  const longSeconds = clipSeconds * loops;
  const url = (path: string) => context.sources.add(path);

  const operations: Operation[] = [
    {
      label: `stream copy (remux) mp4 → mkv, ${longSeconds} s`,
      route: '/video-convert',
      source: long,
      seconds: longSeconds,
      body: { sourceUrl: url(long), outputFormat: 'mkv' },
      plan: videoPlan({ outputFormat: 'mkv' }),
      output: 'remux.mkv',
      budget: { name: 'Stream-copy remux', times: 30 },
    },
    {
      label: `extract audio → mp3, ${longSeconds} s`,
      route: '/video-extract-audio',
      source: long,
      seconds: longSeconds,
      body: { sourceUrl: url(long), outputFormat: 'mp3' },
      plan: audioPlan({ outputFormat: 'mp3' }),
      output: 'audio.mp3',
      defaults: ['-i', long, '-vn'],
    },
    {
      label: `720p H.264 → mp4 (re-encode, quality medium), ${clipSeconds} s`,
      route: '/video-convert',
      source: clip,
      seconds: clipSeconds,
      body: { sourceUrl: url(clip), outputFormat: 'mp4', quality: 'medium' },
      plan: videoPlan({ outputFormat: 'mp4', quality: 'medium' }),
      output: 'video.mp4',
      defaults: ['-i', clip],
      budget: { name: '720p video to mp4', times: 2 },
    },
    {
      label: `720p H.264 → webm (VP9 + Opus), ${clipSeconds} s`,
      route: '/video-convert',
      source: clip,
      seconds: clipSeconds,
      body: { sourceUrl: url(clip), outputFormat: 'webm' },
      plan: videoPlan({ outputFormat: 'webm' }),
      output: 'video.webm',
      defaults: ['-i', clip],
      budget: { name: '720p video to webm', times: 1 },
    },
  ];

  const table: Table = {
    caption: `Time, median of ${Math.min(context.runs, 3)} runs (720p30 H.264 + AAC test pattern with grain, ${formatBytes(await sizeOf(clip))} per ${clipSeconds} s)`,
    head: ['Operation', 'Contender', 'Time', 'Speed', 'vs bare ffmpeg', 'Output'],
    rows: [],
  };
  const budgets: Budget[] = [];
  for (const operation of operations) {
    const bareOutput = workFile(context, `bare-${operation.output}`);
    const job = await operation.plan(operation.source, bareOutput);
    const { times, results } = await contest(
      [
        {
          name: 'service',
          run: async () => (await post(context.service.url, operation.route, operation.body)).bytes,
        },
        {
          name: 'bare',
          run: async () => {
            await runTool(ffmpegPath, ffmpegArguments(job));
            return sizeOf(bareOutput);
          },
        },
      ],
      Math.min(context.runs, 3),
      // A re-encode takes seconds: a warm-up run would only add minutes (the handlers are loaded by then).
      { warmup: operation.seconds === longSeconds },
    );
    const row = (label: string, ms: number, ratio: string, bytes: number | undefined) => [
      operation.label,
      label,
      formatMs(ms),
      speed(operation.seconds, ms),
      ratio,
      formatBytes(bytes),
    ];
    const serviceMs = median(times.get('service')!);
    table.rows.push(
      row(
        'service (local gateway)',
        serviceMs,
        formatRatio(pairedRatio(times.get('service')!, times.get('bare')!)),
        results.get('service'),
      ),
      row('ffmpeg, same command (bare)', median(times.get('bare')!), '1.00×', results.get('bare')),
    );
    if (operation.defaults) {
      // ffmpeg's defaults are far slower for webm (VP9 "good" deadline): one run.
      const output = workFile(context, `defaults-${operation.output}`);
      const { ms } = await timed(() =>
        runTool(ffmpegPath, ['-v', 'error', '-y', ...operation.defaults!, output]),
      );
      table.rows.push(
        row(
          'ffmpeg defaults (1 run)',
          ms,
          formatRatio(ms / median(times.get('bare')!)),
          await sizeOf(output),
        ),
      );
    }
    if (operation.budget) {
      const reached = operation.seconds / (serviceMs / 1000);
      budgets.push({
        name: operation.budget.name,
        target: `≥ ${operation.budget.times}× real time`,
        measured: `${reached.toFixed(1)}× (bare ffmpeg ${(operation.seconds / (median(times.get('bare')!) / 1000)).toFixed(1)}×)`,
        met: reached >= operation.budget.times,
      });
    }
  }

  return {
    title: 'Audio and video',
    tables: [table],
    budgets,
    notes: [
      "The service time includes the download over loopback, ffprobe's look at the source and the answer streamed " +
        'back; the bare run is the ffmpeg command the route plans (shared/media), on the same file. ffmpeg defaults: ' +
        '`ffmpeg -i source out.<ext>` (x264 preset medium, CRF 23; VP9 in its default "good" mode).',
    ],
  };
}
