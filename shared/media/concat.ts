import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { inField } from '#shared/errors.ts';
import { encoderBitrate } from '#shared/media/audio-bitrate.ts';
import { audioEncodeOptions, audioEncoderOf, writableRate } from '#shared/media/convert-audio.ts';
import {
  displaySize,
  fitDimensions,
  videoEncodeOptions,
  videoTargetOf,
} from '#shared/media/convert-video.ts';
import { withRealDuration } from '#shared/media/duration.ts';
import { assertEncoderFits } from '#shared/media/encoder-bounds.ts';
import {
  type AudioOutputFormat,
  contentTypeOf,
  demuxerOf,
  faststartFormats,
  muxerOf,
  type VideoOutputFormat,
  videoOutputFormats,
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
import { firstStream, type MediaInfo, type StreamInfo } from '#shared/media/probe.ts';
import { type FfmpegJob, runFfprobe } from '#shared/media/run.ts';
import { assertOutputDecodes } from '#shared/media/verify.ts';

/**
 * /media-concat: sources played one after the other in one file. Sources whose streams are encoded
 * alike (the same codec, its settings, size, frame rate, sample rate and layout: the same stream
 * signature below) and that the target holds as they are, are joined without re-encoding by the
 * concat demuxer, from a list this code writes in the request's folder (names relative to it;
 * `safe` on, so the list can name nothing else, and the file protocol only). Otherwise every source
 * is decoded and brought to the first one's frame size (scaled to fit, centred on black), frame
 * rate, sample rate and channels, and the concat filter joins them for one encode.
 */

export type ConcatFormat = VideoOutputFormat | AudioOutputFormat;

export interface ConcatSource {
  input: MediaInput;
  info: MediaInfo;
  /** What must be equal for streams to be joined as they are (codec settings included). */
  signature: string;
}

const isVideoFormat = (format: ConcatFormat): format is VideoOutputFormat =>
  (videoOutputFormats as readonly string[]).includes(format);

/** Channel layouts by count, as ffmpeg names them. */
const layouts = ['mono', 'stereo', '2.1', 'quad', '5.0', '5.1', '6.1', '7.1'];
const layoutOf = (channels: number | undefined) => layouts[Math.min(8, Math.max(1, channels ?? 2)) - 1];

const seconds = (value: number) => String(Number(value.toFixed(3)));

/** A stream's signature fields, as ffprobe reports them with `-show_data_hash`. */
const signatureFields = [
  'codec_type',
  'codec_name',
  'profile',
  'pix_fmt',
  'width',
  'height',
  'sample_aspect_ratio',
  'r_frame_rate',
  'time_base',
  'sample_rate',
  'channels',
  'channel_layout',
  'sample_fmt',
  'extradata_hash',
];

/** The signature of a source's first video and audio streams: equal signatures join without re-encoding. */
export async function streamSignature(input: MediaInput, signal?: AbortSignal): Promise<string> {
  const report = await runFfprobe(input.path, demuxerOf[input.format], {
    timeoutMs: 30_000,
    signal,
    report: ['-show_streams', '-show_data_hash', 'SHA256'],
  });
  const streams = report.streams ?? [];
  const first = (type: string) =>
    streams.find(
      (stream) =>
        stream.codec_type === type &&
        (stream.disposition as Record<string, unknown> | undefined)?.attached_pic !== 1,
    );
  return JSON.stringify(
    ['video', 'audio'].map((type) => {
      const stream = first(type);
      return stream ? signatureFields.map((field) => stream[field] ?? null) : null;
    }),
  );
}

/** Whether the sources can be joined as they are into `format`. */
export function joinsAsTheyAre(sources: readonly ConcatSource[], format: ConcatFormat): boolean {
  const [first] = sources;
  if (!first || sources.some((source) => source.signature !== first.signature)) return false;
  if (sources.some((source) => source.info.streams.some((stream) => stream.rotation !== undefined)))
    return false;
  const video = firstStream(first.info, 'video');
  const audio = firstStream(first.info, 'audio');
  if (isVideoFormat(format)) {
    const target = videoTargetOf(format);
    return (
      video !== undefined &&
      target.videoCopies.includes(video.codec) &&
      (audio === undefined || target.audioCopies.includes(audio.codec))
    );
  }
  return audio !== undefined && audioEncoderOf(format).copies.includes(audio.codec);
}

/** The concat demuxer's list: one relative name a line, each in the list's own folder. */
export const concatList = (sources: readonly ConcatSource[]) =>
  `ffconcat version 1.0\n${sources.map((source) => `file '${basename(source.input.path)}'\n`).join('')}`;

/** The job that joins sources as they are, from the list at `list`. */
export function planCopy(
  sources: readonly ConcatSource[],
  format: ConcatFormat,
  list: string,
  output: string,
  maxSeconds: number,
  totalSeconds: number | undefined,
): FfmpegJob {
  const demuxers = [...new Set(sources.map((source) => demuxerOf[source.input.format]))];
  const streams = isVideoFormat(format) ? ['-map', '0:v:0', '-map', '0:a:0?'] : ['-map', '0:a:0', '-vn'];
  return {
    input: list,
    demuxer: 'concat',
    // `safe` refuses any name that is not a plain relative one; the sources are read only with
    // their own demuxers, and through the file protocol the run allows.
    inputOptions: ['-safe', '1', '-format_whitelist', ['concat', ...demuxers].join(',')],
    output,
    outputOptions: [
      ...streams,
      ...['-c', 'copy', '-sn', '-dn', '-t', seconds(maxSeconds + overrunSeconds)],
      ...(faststartFormats.has(format) ? ['-movflags', '+faststart'] : []),
      ...['-f', muxerOf[format]],
    ],
    ...(totalSeconds !== undefined ? { expectedSeconds: totalSeconds } : {}),
  };
}

/** The frame every source is brought to: the first one's, as a player shows it, in even sizes. */
function referenceFrame(video: StreamInfo) {
  const shown = displaySize(video) ?? { width: 640, height: 360 };
  const size = fitDimensions(shown, undefined, undefined);
  const fps = Math.min(120, Math.max(1, video.fps ?? 25));
  return { ...size, fps: Number(fps.toFixed(3)) };
}

/** The job that decodes every source, brings it to the first one's shape and encodes them as one. */
export function planReencode(
  sources: readonly ConcatSource[],
  format: ConcatFormat,
  output: string,
  maxSeconds: number,
  totalSeconds: number | undefined,
): FfmpegJob {
  const first = sources[0]!.info;
  const withVideo = isVideoFormat(format);
  const firstVideo = withVideo ? requireStream(first, 'video') : undefined;
  // The sound is the first source's shape; when the first has none, the first that has.
  const firstAudio = sources
    .map(({ info }) => firstStream(info, 'audio'))
    .find((audio) => audio !== undefined);
  const frame = firstVideo ? referenceFrame(firstVideo) : undefined;
  // The sound's rate where the target's audio encoder takes it (Opus: 48 kHz; MP3: at most 48).
  const soundFormat = ({ webm: 'ogg', avi: 'mp3' } as const)[format as 'webm' | 'avi'] ?? format;
  const rate = writableRate(isVideoFormat(soundFormat) ? 'm4a' : soundFormat, firstAudio?.sampleRate);
  const layout = layoutOf(firstAudio?.channels);
  const segments = sources.map(({ info }, index) => {
    const parts: string[] = [];
    if (frame) {
      const video = requireStream(info, 'video');
      parts.push(
        `[${index}:${video.index}]scale=${frame.width}:${frame.height}:force_original_aspect_ratio=decrease,` +
          `pad=${frame.width}:${frame.height}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=${frame.fps},format=yuv420p[v${index}]`,
      );
    }
    if (firstAudio) {
      const audio = firstStream(info, 'audio');
      parts.push(
        audio
          ? `[${index}:${audio.index}]aresample=${rate},aformat=sample_fmts=fltp:channel_layouts=${layout}[a${index}]`
          : `anullsrc=r=${rate}:cl=${layout},atrim=duration=${seconds(info.durationSeconds ?? 0)},aformat=sample_fmts=fltp[a${index}]`,
      );
    }
    return { parts, labels: `${frame ? `[v${index}]` : ''}${firstAudio ? `[a${index}]` : ''}` };
  });
  const joined = `${segments.map((segment) => segment.labels).join('')}concat=n=${sources.length}:v=${frame ? 1 : 0}:a=${firstAudio ? 1 : 0}${frame ? '[v]' : ''}${firstAudio ? '[a]' : ''}`;
  const graph = [...segments.flatMap((segment) => segment.parts), joined].join(';');
  const encoding = isVideoFormat(format)
    ? (() => {
        const target = videoTargetOf(format);
        return [
          ...videoEncodeOptions(target.videoEncoder, 'medium'),
          ...(firstAudio
            ? ['-c:a', target.audioEncoder, '-b:a', `${target.audioKbps}k`, '-ar', String(rate)]
            : []),
        ];
      })()
    : (() => {
        const { encoder, defaultKbps } = audioEncoderOf(format);
        const channels = format === 'mp3' && (firstAudio?.channels ?? 2) > 2 ? 2 : undefined;
        const kbps =
          defaultKbps === undefined
            ? undefined
            : encoderBitrate(encoder, defaultKbps, {
                channels: channels ?? firstAudio?.channels ?? 2,
                sampleRate: rate,
              });
        return audioEncodeOptions(encoder, kbps, { sampleRate: rate, ...(channels ? { channels } : {}) });
      })();
  const [head, ...rest] = sources;
  return {
    input: head!.input.path,
    demuxer: demuxerOf[head!.input.format],
    inputOptions: ['-threads', '1'],
    moreInputs: rest.map(({ input }) => ({
      path: input.path,
      demuxer: demuxerOf[input.format],
      options: ['-threads', '1'],
    })),
    output,
    outputOptions: [
      ...['-filter_complex', graph],
      ...(frame ? ['-map', '[v]'] : []),
      ...(firstAudio ? ['-map', '[a]'] : []),
      ...encoding,
      ...['-t', seconds(maxSeconds + overrunSeconds)],
      ...encoderThreads(),
      ...['-max_muxing_queue_size', '1024'],
      ...(faststartFormats.has(format) ? ['-movflags', '+faststart'] : []),
      ...['-f', muxerOf[format]],
    ],
    ...(totalSeconds !== undefined ? { expectedSeconds: totalSeconds } : {}),
  };
}

/** The size check of the frame all sources are brought to, before any work. */
function assertFrameFits(sources: readonly ConcatSource[], format: ConcatFormat): void {
  if (!isVideoFormat(format)) return;
  const frame = referenceFrame(requireStream(sources[0]!.info, 'video'));
  assertEncoderFits(videoTargetOf(format).videoEncoder, frame, {}, (_field, width) =>
    fitDimensions(frame, width, undefined),
  );
}

/** Probes every source (each error named by its place), checks what the output needs, and their length together. */
async function inspectSources(
  inputs: readonly MediaInput[],
  format: ConcatFormat,
  context: MediaContext,
): Promise<ConcatSource[]> {
  const needs = isVideoFormat(format) ? 'video' : 'audio';
  const sources: ConcatSource[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      const header = await inspectMedia(input, context);
      requireStream(header, needs);
      const info = await withRealDuration(input, header, {
        stopAfterSeconds: context.maxMediaSeconds + overrunSeconds,
        signal: context.signal,
      });
      sources.push({ input, info, signature: await streamSignature(input, context.signal) });
    } catch (error) {
      throw inField(`sources.${index}`, error);
    }
  }
  const known = sources.every((source) => source.info.durationSeconds !== undefined);
  const total = sources.reduce((sum, source) => sum + (source.info.durationSeconds ?? 0), 0);
  assertDurationWithinTier(
    { ...sources[0]!.info, durationSeconds: known ? Number(total.toFixed(3)) : undefined },
    context.tier,
    context.maxMediaSeconds,
    'Together the sources last',
  );
  return sources;
}

/** Plays the sources one after the other in one file of `format`. */
export async function concatMedia(
  inputs: readonly MediaInput[],
  format: ConcatFormat,
  context: MediaContext,
): Promise<MediaFile> {
  const sources = await inspectSources(inputs, format, context);
  const total = sources.every((source) => source.info.durationSeconds !== undefined)
    ? sources.reduce((sum, source) => sum + (source.info.durationSeconds ?? 0), 0)
    : undefined;
  const output = await context.workspace.file(`output.${format}`);
  let job: FfmpegJob;
  if (joinsAsTheyAre(sources, format)) {
    const list = await context.workspace.file('concat.txt');
    await writeFile(list, concatList(sources));
    job = planCopy(sources, format, list, output, context.maxMediaSeconds, total);
  } else {
    assertFrameFits(sources, format);
    job = planReencode(sources, format, output, context.maxMediaSeconds, total);
  }
  const run = await runMediaJob(job, context);
  assertNoOverrun(run, sources[0]!.info, undefined, context);
  await assertOutputDecodes(output, format, isVideoFormat(format) ? 'video' : 'audio', context.signal);
  return {
    path: output,
    contentType: contentTypeOf[format],
    fileName: `${inputs[0]!.baseName}.${format}`,
  };
}
