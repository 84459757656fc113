import { writeFile } from 'node:fs/promises';
import { ffmpegPath } from '#shared/media/binaries.ts';
import {
  type ConcatSource,
  concatList,
  planCopy,
  planReencode,
  streamSignature,
} from '#shared/media/concat.ts';
import { planAnimation } from '#shared/media/convert-animation.ts';
import type { MediaInput } from '#shared/media/job.ts';
import { loudnessReport, planCorrect, planMeasure } from '#shared/media/normalize.ts';
import { probeMedia } from '#shared/media/probe.ts';
import { type FfmpegJob, ffmpegArguments } from '#shared/media/run.ts';
import { planWaveform } from '#shared/media/waveform.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { writeClip } from './inputs.ts';
import { contest, formatBytes, formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import { descendantsOf, runTool, statusOf, workersOf } from './processes.ts';
import type { Budget, SectionResult, Table } from './report.ts';
import { post } from './service.ts';

/**
 * The media tools (/video-convert to gif and webp, /media-concat, /audio-normalize, /audio-waveform)
 * against the layer's ffmpeg running the very commands the routes plan, one after the other where
 * a route runs two (the GIF palette, the loudness measure), on the same inputs; and the memory a
 * one-hour podcast's waveform takes.
 */

const MB = 1_000_000;
const hour = 3600;

/** Runs a route's planned jobs with ffmpeg alone, in order; the second may need the first's log. */
type Bare = () => Promise<number>;

interface Operation {
  label: string;
  route: string;
  seconds: number;
  body: Record<string, unknown>;
  bare: Bare;
  /** Budget on the service's speed, in times real time. */
  speedBudget?: { name: string; times: number };
}

const runJob = async (job: FfmpegJob) => (await runTool(ffmpegPath, ffmpegArguments(job))).stderr;

const input = (path: string, format: MediaInput['format'] = 'mp4'): MediaInput => ({
  path,
  format,
  baseName: 'b',
});
const probe = (source: MediaInput) => probeMedia(source.path, source.format, { timeoutMs: 60_000 });

/** A spoken-word stand-in: pink noise pulsed at syllable rate, mono MP3 at 64 kbit/s. */
const writePodcast = (path: string, seconds: number) =>
  runTool(ffmpegPath, [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `anoisesrc=c=pink:a=0.25:r=44100:d=${seconds}`],
    ...['-af', 'lowpass=f=3500,tremolo=f=4:d=0.9', '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '64k', path],
  ]);

/** A 480p clip of the same pattern, for a join that must re-encode. */
const writeSmallClip = (from: string, path: string) =>
  runTool(ffmpegPath, [
    ...['-v', 'error', '-y', '-i', from, '-vf', 'scale=854:480', '-r', '25'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-c:a', 'aac', '-ar', '48000', path],
  ]);

const residentBytes = async (pid: number) => {
  const rss = /VmRSS:\s+(\d+) kB/.exec((await statusOf(pid)) ?? '');
  return rss ? Number(rss[1]) * 1024 : 0;
};

/**
 * Peak of the summed resident sets of one function's workers and the processes they start
 * (ffmpeg, ffprobe), sampled every 50 ms while `work` runs.
 */
async function peakOfFunction(
  gatewayPid: number,
  functionName: string,
  work: () => Promise<unknown>,
): Promise<{ ms: number; peak: number }> {
  let peak = 0;
  let sampling = false;
  const sample = async () => {
    if (sampling) return;
    sampling = true;
    try {
      let total = 0;
      for (const worker of await workersOf(gatewayPid, functionName)) {
        total += await residentBytes(worker);
        for (const child of await descendantsOf(worker)) total += await residentBytes(child);
      }
      peak = Math.max(peak, total);
    } finally {
      sampling = false;
    }
  };
  const timer = setInterval(() => void sample(), 50);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { ms: performance.now() - started, peak };
}

export async function benchMediaTools(context: BenchContext): Promise<SectionResult> {
  const file = (name: string) => workFile(context, name);
  const url = (path: string) => context.sources.add(path);
  const clipSeconds = 10;
  const clip = file('tools-720p.mp4');
  const small = file('tools-480p.mp4');
  const podcast = file('podcast.mp3');
  const episode = file('episode.mp3');
  // Just under the hour: an MP3's encoder padding would take exactly 60 minutes past the top tier's limit.
  const podcastSeconds = context.quick ? 600 : hour - 10;
  await writeClip(clip, clipSeconds);
  await writeSmallClip(clip, small);
  await writePodcast(podcast, podcastSeconds);
  await writePodcast(episode, 300);

  const clipInfo = await probe(input(clip));
  const episodeInfo = await probe(input(episode, 'mp3'));
  const podcastInfo = await probe(input(podcast, 'mp3'));
  const concatSource = async (path: string): Promise<ConcatSource> => {
    const source = input(path);
    return { input: source, info: await probe(source), signature: await streamSignature(source) };
  };
  const same = [await concatSource(clip), await concatSource(clip)];
  const mixed = [await concatSource(clip), await concatSource(small)];
  const list = file('list.txt');
  await writeFile(list, concatList(same));

  const operations: Operation[] = [
    {
      label: `720p → GIF, 10 fps, 480 px, ${clipSeconds} s`,
      route: '/video-convert',
      seconds: clipSeconds,
      body: { sourceUrl: url(clip), outputFormat: 'gif', fps: 10, width: 480 },
      bare: async () => {
        const jobs = planAnimation(
          input(clip),
          clipInfo,
          { outputFormat: 'gif', fps: 10, width: 480 },
          file('bare.gif'),
          file('bare-palette.png'),
        );
        for (const job of jobs) await runJob(job);
        return sizeOf(file('bare.gif'));
      },
      speedBudget: { name: '720p clip to GIF (10 fps, 480 px)', times: 2 },
    },
    {
      label: `720p → animated WebP, 10 fps, 480 px, ${clipSeconds} s`,
      route: '/video-convert',
      seconds: clipSeconds,
      body: { sourceUrl: url(clip), outputFormat: 'webp' },
      bare: async () => {
        const [job] = planAnimation(input(clip), clipInfo, { outputFormat: 'webp' }, file('bare.webp'), '');
        await runJob(job!);
        return sizeOf(file('bare.webp'));
      },
    },
    {
      label: `join two alike 720p clips (stream copy), 2 × ${clipSeconds} s`,
      route: '/media-concat',
      seconds: 2 * clipSeconds,
      body: { sources: [url(clip), url(clip)], outputFormat: 'mp4' },
      bare: async () => {
        await runJob(planCopy(same, 'mp4', list, file('bare-copy.mp4'), hour, 2 * clipSeconds));
        return sizeOf(file('bare-copy.mp4'));
      },
    },
    {
      label: `join 720p and 480p clips (re-encode to the first), 2 × ${clipSeconds} s`,
      route: '/media-concat',
      seconds: 2 * clipSeconds,
      body: { sources: [url(clip), url(small)], outputFormat: 'mp4' },
      bare: async () => {
        await runJob(planReencode(mixed, 'mp4', file('bare-joined.mp4'), hour, 2 * clipSeconds));
        return sizeOf(file('bare-joined.mp4'));
      },
    },
    {
      label: 'loudness to −16 LUFS (two passes), 5 min podcast mp3',
      route: '/audio-normalize',
      seconds: 300,
      body: { sourceUrl: url(episode) },
      bare: async () => {
        const options = { targetLufs: -16, truePeak: -1.5 };
        const log = await runJob(planMeasure(input(episode, 'mp3'), episodeInfo, options, hour));
        const measured = loudnessReport(log)!;
        const { job } = planCorrect(
          input(episode, 'mp3'),
          episodeInfo,
          { ...options, outputFormat: 'mp3' },
          measured,
          file('bare-loud.mp3'),
          hour,
        );
        await runJob(job);
        return sizeOf(file('bare-loud.mp3'));
      },
    },
    {
      label: `waveform png, ${Math.round(podcastSeconds / 60)} min podcast mp3`,
      route: '/audio-waveform',
      seconds: podcastSeconds,
      body: { sourceUrl: url(podcast) },
      // The decode to PCM alone; the service also gathers the peaks and draws them.
      bare: async () => {
        await runJob(planWaveform(input(podcast, 'mp3'), podcastInfo, hour));
        return 0;
      },
    },
  ];

  const table: Table = {
    caption: `Time, median of ${Math.min(context.runs, 3)} runs, against ffmpeg alone running the commands the route plans`,
    head: ['Operation', 'Service', 'Speed', 'ffmpeg alone', 'Service ÷ ffmpeg', 'Output'],
    rows: [],
  };
  const budgets: Budget[] = [];
  for (const operation of operations) {
    const { times, results } = await contest(
      [
        {
          name: 'service',
          run: async () => (await post(context.service.url, operation.route, operation.body)).bytes,
        },
        { name: 'bare', run: operation.bare },
      ],
      Math.min(context.runs, 3),
      { warmup: false },
    );
    const serviceMs = median(times.get('service')!);
    const ratio = pairedRatio(times.get('service')!, times.get('bare')!);
    table.rows.push([
      operation.label,
      formatMs(serviceMs),
      `${(operation.seconds / (serviceMs / 1000)).toFixed(1)}× real time`,
      formatMs(median(times.get('bare')!)),
      formatRatio(ratio),
      formatBytes(results.get('service')),
    ]);
    budgets.push({
      name: `${operation.route}: ${operation.label}`,
      target: '≤ 1.2× ffmpeg alone',
      measured: formatRatio(ratio),
      met: ratio <= 1.2,
    });
    if (operation.speedBudget) {
      const reached = operation.seconds / (serviceMs / 1000);
      budgets.push({
        name: operation.speedBudget.name,
        target: `≥ ${operation.speedBudget.times}× real time`,
        measured: `${reached.toFixed(1)}×`,
        met: reached >= operation.speedBudget.times,
      });
    }
  }

  // Memory: the waveform function's worker and the ffmpeg it starts, summed, sampled every 50 ms.
  const { ms, peak } = await peakOfFunction(context.service.pid, 'audio-waveform', () =>
    post(context.service.url, '/audio-waveform', { sourceUrl: url(podcast), outputFormat: 'json' }),
  );
  budgets.push({
    name: `Waveform of a ${Math.round(podcastSeconds / 60)}-minute podcast: memory`,
    target: '< 200 MB (function worker + ffmpeg)',
    measured: `${formatBytes(peak)} in ${formatMs(ms)}`,
    met: peak < 200 * MB,
  });

  return {
    title: 'Media tools: animations, joins, loudness, waveforms',
    tables: [table],
    budgets,
    notes: [
      'Inputs: a 10 s 720p30 H.264 + AAC test pattern, the same scaled to 480p (a join that re-encodes), and ' +
        `pink noise pulsed at syllable rate as mono 64 kbit/s MP3 (a 5-minute episode; ${Math.round(podcastSeconds / 60)} minutes for the ` +
        'waveform). The service time includes the download over loopback, the probes and the answer streamed back; ' +
        'ffmpeg alone runs the route’s planned commands in order (GIF: palette then frames; loudness: measure then ' +
        'correct; waveform: the decode to PCM). Memory of the waveform: the resident sets of the function’s worker ' +
        '(Node, the handler) and the ffmpeg it starts, summed and sampled every 50 ms.',
    ],
  };
}
