import { encoderBitrate } from '#shared/media/audio-bitrate.ts';
import {
  audioEncodeOptions,
  audioEncoderOf,
  bitrateHeader,
  writableRate,
} from '#shared/media/convert-audio.ts';
import { withRealDuration } from '#shared/media/duration.ts';
import {
  type AudioOutputFormat,
  contentTypeOf,
  demuxerOf,
  faststartFormats,
  type MediaSourceFormat,
  muxerOf,
} from '#shared/media/formats.ts';
import {
  assertNoOverrun,
  inspectMedia,
  type MediaContext,
  type MediaFile,
  type MediaInput,
  runMediaJob,
} from '#shared/media/job.ts';
import { assertDurationWithinTier, requireStream } from '#shared/media/limits.ts';
import { encoderThreads, overrunSeconds } from '#shared/media/options.ts';
import type { MediaInfo } from '#shared/media/probe.ts';
import type { FfmpegJob } from '#shared/media/run.ts';
import { assertOutputDecodes } from '#shared/media/verify.ts';

/**
 * /audio-normalize: EBU R128 loudness normalisation with ffmpeg's `loudnorm`, in two passes. The
 * first measures the source (integrated loudness, true peak, loudness range, gate threshold); the
 * second applies one gain to the whole file from those figures (loudnorm's linear mode), which keeps
 * the dynamics as they were. Where that gain would push the true peak past the limit, loudnorm
 * itself falls back to its dynamic mode, which compresses the peaks. Each pass reports its figures
 * as JSON in ffmpeg's log, at the `info` level.
 */

export interface NormalizeOptions {
  outputFormat?: AudioOutputFormat | undefined;
  targetLufs: number;
  truePeak: number;
}

/** The figures loudnorm reports, as it words them (numbers in text; `-inf` for silence). */
export interface LoudnessReport {
  input_i: string;
  input_tp: string;
  input_lra: string;
  input_thresh: string;
  output_i: string;
  target_offset: string;
}

/** Where the source's own format is no audio output format: what its audio is written as. */
const defaultFormats: Readonly<Record<MediaSourceFormat, AudioOutputFormat>> = {
  mp3: 'mp3',
  wav: 'wav',
  ogg: 'ogg',
  aac: 'aac',
  flac: 'flac',
  m4a: 'm4a',
  mp4: 'm4a',
  mov: 'm4a',
  webm: 'ogg',
  mkv: 'mp3',
  avi: 'mp3',
};

export const normalizedFormat = (source: MediaSourceFormat, asked: AudioOutputFormat | undefined) =>
  asked ?? defaultFormats[source];

/** loudnorm's loudness range target, 1–20 LU in ffmpeg 5.1: the source's own keeps the linear mode. */
const rangeTarget = (measured: number) => Math.min(20, Math.max(1, Number.isFinite(measured) ? measured : 7));

/** Below this the whole source lies under EBU R128's absolute gate: silence, with no loudness to correct. */
const silenceLufs = -70;

const number = (text: string) => Number(text);
const figure = (value: number) => Number(value.toFixed(2));

/** The last loudnorm report in a log. */
export function loudnessReport(log: string): LoudnessReport | undefined {
  const reports = log.match(/\{[^{}]*"input_i"[^{}]*\}/g);
  const last = reports?.at(-1);
  if (last === undefined) return undefined;
  try {
    return JSON.parse(last) as LoudnessReport;
  } catch {
    return undefined;
  }
}

/** The measuring pass: loudnorm reads the whole stream and writes nothing (null muxer). */
export function planMeasure(
  input: MediaInput,
  info: MediaInfo,
  options: NormalizeOptions,
  maxSeconds: number,
) {
  const stream = requireStream(info, 'audio');
  return {
    input: input.path,
    demuxer: demuxerOf[input.format],
    output: '-',
    outputOptions: [
      ...['-map', `0:${stream.index}`, '-vn', '-sn'],
      ...['-t', String(maxSeconds + overrunSeconds)],
      ...['-af', `loudnorm=I=${options.targetLufs}:TP=${options.truePeak}:print_format=json`],
      ...['-v', 'info', '-f', 'null'],
    ],
    expectedSeconds: info.durationSeconds,
  } satisfies FfmpegJob;
}

/** The correcting pass: one gain from the measured figures, then the target's encoder. */
export function planCorrect(
  input: MediaInput,
  info: MediaInfo,
  options: NormalizeOptions & { outputFormat: AudioOutputFormat },
  measured: LoudnessReport,
  output: string,
  maxSeconds: number,
): { job: FfmpegJob; kbps: number | undefined } {
  const stream = requireStream(info, 'audio');
  const format = options.outputFormat;
  const { encoder, defaultKbps } = audioEncoderOf(format);
  const sampleRate = writableRate(format, stream.sampleRate);
  // LAME writes at most two channels.
  const channels = format === 'mp3' && (stream.channels ?? 2) > 2 ? 2 : undefined;
  const kbps =
    defaultKbps === undefined
      ? undefined
      : encoderBitrate(encoder, defaultKbps, { channels: channels ?? stream.channels ?? 2, sampleRate });
  const silent = !(number(measured.input_i) >= silenceLufs);
  const loudnorm = [
    `loudnorm=I=${options.targetLufs}:TP=${options.truePeak}:LRA=${rangeTarget(number(measured.input_lra))}`,
    `measured_I=${measured.input_i}:measured_TP=${measured.input_tp}:measured_LRA=${measured.input_lra}`,
    `measured_thresh=${measured.input_thresh}:offset=${measured.target_offset}:linear=true:print_format=json`,
  ].join(':');
  return {
    kbps,
    job: {
      input: input.path,
      demuxer: demuxerOf[input.format],
      output,
      outputOptions: [
        ...['-map', `0:${stream.index}`, '-vn', '-sn', '-map_metadata', '-1'],
        ...['-t', String(maxSeconds + overrunSeconds)],
        ...(silent ? [] : ['-af', loudnorm, '-v', 'info']),
        ...audioEncodeOptions(encoder, kbps, { sampleRate, ...(channels ? { channels } : {}) }),
        ...encoderThreads(),
        ...(faststartFormats.has(format) ? ['-movflags', '+faststart'] : []),
        ...['-f', muxerOf[format]],
      ],
      expectedSeconds: info.durationSeconds,
    },
  };
}

/** The halves of the run's progress: measuring, then correcting. */
const half = (context: MediaContext, index: 0 | 1): MediaContext => ({
  ...context,
  ...(context.onProgress
    ? { onProgress: (percent: number) => context.onProgress?.(50 * index + percent / 2) }
    : {}),
});

/** Loudness as the headers state it: LUFS with two decimals, or `-inf` for silence. */
const lufs = (text: string | undefined) => {
  const value = Number(text);
  return Number.isFinite(value) ? String(figure(value)) : '-inf';
};

/** Normalises the loudness of a source's first audio stream; the headers name the loudness before and after. */
export async function normalizeAudio(
  input: MediaInput,
  options: NormalizeOptions,
  context: MediaContext,
): Promise<MediaFile> {
  const header = await inspectMedia(input, context);
  requireStream(header, 'audio');
  const info = await withRealDuration(input, header, {
    stopAfterSeconds: context.maxMediaSeconds + overrunSeconds,
    signal: context.signal,
  });
  assertDurationWithinTier(info, context.tier, context.maxMediaSeconds);
  const outputFormat = normalizedFormat(input.format, options.outputFormat);
  const measuring = await runMediaJob(
    planMeasure(input, info, options, context.maxMediaSeconds),
    half(context, 0),
  );
  assertNoOverrun(measuring, info, undefined, context);
  const measured = loudnessReport(measuring.log);
  if (measured === undefined) throw new Error('loudnorm wrote no report');
  const output = await context.workspace.file(`output.${outputFormat}`);
  const { job, kbps } = planCorrect(
    input,
    info,
    { ...options, outputFormat },
    measured,
    output,
    context.maxMediaSeconds,
  );
  const correcting = await runMediaJob(job, half(context, 1));
  await assertOutputDecodes(output, outputFormat, 'audio', context.signal);
  const silent = !(number(measured.input_i) >= silenceLufs);
  const result = silent ? measured : loudnessReport(correcting.log);
  return {
    path: output,
    contentType: contentTypeOf[outputFormat],
    fileName: `${input.baseName}.${outputFormat}`,
    headers: {
      'X-Input-Loudness': lufs(measured.input_i),
      'X-Output-Loudness': lufs(silent ? measured.input_i : result?.output_i),
      ...(kbps !== undefined ? { [bitrateHeader]: String(kbps) } : {}),
    },
  };
}
