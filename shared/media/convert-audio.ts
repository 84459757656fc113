import { encoderBitrate, vorbisQuality } from '#shared/media/audio-bitrate.ts';
import { type AudioOutputFormat, demuxerOf, faststartFormats, muxerOf } from '#shared/media/formats.ts';
import { convertMedia, type MediaContext, type MediaFile, type MediaInput } from '#shared/media/job.ts';
import { requireStream } from '#shared/media/limits.ts';
import { encoderThreads, trimmedSeconds, trimOptions } from '#shared/media/options.ts';
import type { MediaInfo, StreamInfo } from '#shared/media/probe.ts';
import type { FfmpegJob } from '#shared/media/run.ts';

export interface AudioOptions {
  outputFormat: AudioOutputFormat;
  /** kbit/s, lossy formats only. */
  bitrate?: number | undefined;
  sampleRate?: number | undefined;
  channels?: 1 | 2 | undefined;
  start?: number | undefined;
  duration?: number | undefined;
}

interface AudioTarget {
  /** Source codecs the container holds as they are. */
  copies: readonly string[];
  encoder: string;
  /** kbit/s when no bitrate is asked; undefined for lossless encoders. */
  defaultKbps?: number;
}

const targets: Readonly<Record<AudioOutputFormat, AudioTarget>> = {
  mp3: { copies: ['mp3'], encoder: 'libmp3lame', defaultKbps: 192 },
  wav: { copies: ['pcm_s16le', 'pcm_s24le', 'pcm_s32le', 'pcm_f32le', 'pcm_u8'], encoder: 'pcm_s16le' },
  ogg: { copies: ['opus', 'vorbis'], encoder: 'libopus', defaultKbps: 128 },
  aac: { copies: ['aac'], encoder: 'aac', defaultKbps: 160 },
  flac: { copies: ['flac'], encoder: 'flac' },
  m4a: { copies: ['aac', 'alac'], encoder: 'aac', defaultKbps: 160 },
};

/** The encoder a format is written with, and its default bitrate (kbit/s; none for lossless). */
export const audioEncoderOf = (
  format: AudioOutputFormat,
): { encoder: string; defaultKbps?: number; copies: readonly string[] } => targets[format];

/** The sample rate a re-encode writes: `rate` where the format holds it (Opus runs at 48 kHz, MP3 at most at 48). */
export function writableRate(format: AudioOutputFormat, rate: number | undefined): number {
  if (format === 'ogg') return 48_000;
  if (format === 'mp3') return Math.min(rate ?? 48_000, 48_000);
  return rate ?? 48_000;
}

/** Opus runs at these rates only; another asked rate in Ogg is written with Vorbis instead. */
const opusSampleRates: ReadonlySet<number> = new Set([8000, 12000, 16000, 24000, 48000]);

/** The encoder for a target, or 'copy' when the source stream fits and nothing was asked to change. */
export function audioCodecFor(stream: StreamInfo, options: AudioOptions): string {
  const target = targets[options.outputFormat];
  const changes =
    options.bitrate !== undefined ||
    (options.sampleRate !== undefined && options.sampleRate !== stream.sampleRate) ||
    (options.channels !== undefined && options.channels !== stream.channels);
  if (!changes && target.copies.includes(stream.codec)) return 'copy';
  if (
    options.outputFormat === 'ogg' &&
    options.sampleRate !== undefined &&
    !opusSampleRates.has(options.sampleRate)
  ) {
    return 'libvorbis';
  }
  return target.encoder;
}

/**
 * The kbit/s the encoder is given: the asked bitrate (or the target's default) brought to the
 * nearest one the encoder takes at the output's channels and sample rate (audio-bitrate.ts).
 * Undefined for a copy and for encoders that take no bitrate.
 */
export function appliedBitrate(stream: StreamInfo, options: Omit<AudioOptions, 'start' | 'duration'>) {
  const codec = audioCodecFor(stream, options);
  const kbps = options.bitrate ?? targets[options.outputFormat].defaultKbps;
  if (codec === 'copy' || kbps === undefined) return undefined;
  return encoderBitrate(codec, kbps, {
    channels: options.channels ?? stream.channels ?? 2,
    sampleRate: options.sampleRate ?? stream.sampleRate ?? 48_000,
  });
}

/** Output options for the audio stream of any result: codec, bitrate (or Vorbis's quality), rate and channels. */
export function audioEncodeOptions(
  codec: string,
  kbps: number | undefined,
  options: Pick<AudioOptions, 'sampleRate' | 'channels'>,
): string[] {
  if (codec === 'copy') return ['-c:a', 'copy'];
  const rate =
    kbps !== undefined ? ['-b:a', `${kbps}k`] : codec === 'libvorbis' ? ['-q:a', String(vorbisQuality)] : [];
  return [
    '-c:a',
    codec,
    ...rate,
    ...(options.sampleRate !== undefined ? ['-ar', String(options.sampleRate)] : []),
    ...(options.channels !== undefined ? ['-ac', String(options.channels)] : []),
  ];
}

/** The whole ffmpeg job for an audio conversion; pure, so the choices can be tested without running it. */
export function planAudio(
  input: MediaInput,
  info: MediaInfo,
  options: AudioOptions,
  output: string,
): FfmpegJob {
  const stream = requireStream(info, 'audio');
  const codec = audioCodecFor(stream, options);
  return {
    input: input.path,
    demuxer: demuxerOf[input.format],
    inputOptions: trimOptions(options).input,
    output,
    outputOptions: [
      '-map',
      `0:${stream.index}`,
      ...audioEncodeOptions(codec, appliedBitrate(stream, options), options),
      ...trimOptions(options).output,
      ...encoderThreads(),
      ...(faststartFormats.has(options.outputFormat) ? ['-movflags', '+faststart'] : []),
      '-f',
      muxerOf[options.outputFormat],
    ],
    expectedSeconds: trimmedSeconds(info, options),
  };
}

/** The header that names the bitrate the encoder was given, which may differ from the one asked. */
export const bitrateHeader = 'X-Audio-Bitrate';

/**
 * Converts (or extracts) the first audio stream of a source into an audio file. Where the audio is
 * encoded at a bitrate, the result carries it (kbit/s) in `X-Audio-Bitrate`.
 */
export async function convertAudio(
  input: MediaInput,
  options: AudioOptions,
  context: MediaContext,
): Promise<MediaFile> {
  let kbps: number | undefined;
  const file = await convertMedia(input, options, context, 'audio', (info, bounded, output) => {
    kbps = appliedBitrate(requireStream(info, 'audio'), bounded);
    return planAudio(input, info, bounded, output);
  });
  return kbps === undefined ? file : { ...file, headers: { [bitrateHeader]: String(kbps) } };
}
