import { ApiError } from '#shared/errors.ts';
import { assertEncoderFits, type VideoEncoder } from '#shared/media/encoder-bounds.ts';
import type { VideoQuality } from '#shared/media/formats.ts';
import { demuxerOf, faststartFormats, muxerOf, type VideoOutputFormat } from '#shared/media/formats.ts';
import { boundedOutputSize } from '#shared/media/frame-bounds.ts';
import { convertMedia, type MediaContext, type MediaFile, type MediaInput } from '#shared/media/job.ts';
import { requireStream } from '#shared/media/limits.ts';
import { encoderThreads, trimmedSeconds, trimOptions } from '#shared/media/options.ts';
import { firstStream, type MediaInfo, type StreamInfo } from '#shared/media/probe.ts';
import type { FfmpegJob } from '#shared/media/run.ts';

export interface VideoOptions {
  outputFormat: VideoOutputFormat;
  width?: number | undefined;
  height?: number | undefined;
  /** Given means: re-encode at this level even where the stream could be copied. */
  quality?: VideoQuality | undefined;
  fps?: number | undefined;
  start?: number | undefined;
  duration?: number | undefined;
  mute?: boolean | undefined;
}

export interface VideoTarget {
  videoCopies: readonly string[];
  audioCopies: readonly string[];
  videoEncoder: VideoEncoder;
  audioEncoder: string;
  audioKbps: number;
  /** Whether the container keeps a rotation flag, so a rotated stream may be copied. */
  keepsRotation: boolean;
}

const mp4Family: Pick<VideoTarget, 'videoEncoder' | 'audioEncoder' | 'audioKbps' | 'keepsRotation'> = {
  videoEncoder: 'libx264',
  audioEncoder: 'aac',
  audioKbps: 128,
  keepsRotation: true,
};

const targets: Readonly<Record<VideoOutputFormat, VideoTarget>> = {
  mp4: { ...mp4Family, videoCopies: ['h264', 'hevc', 'mpeg4'], audioCopies: ['aac', 'mp3', 'ac3', 'alac'] },
  mov: {
    ...mp4Family,
    videoCopies: ['h264', 'hevc', 'mpeg4', 'mjpeg', 'prores'],
    audioCopies: ['aac', 'mp3', 'ac3', 'alac', 'pcm_s16le', 'pcm_s24le'],
  },
  mkv: {
    videoEncoder: 'libx264',
    audioEncoder: 'aac',
    audioKbps: 128,
    keepsRotation: false,
    videoCopies: ['h264', 'hevc', 'mpeg4', 'vp8', 'vp9', 'av1', 'theora', 'mjpeg'],
    audioCopies: ['aac', 'mp3', 'opus', 'vorbis', 'flac', 'ac3', 'alac', 'pcm_s16le', 'pcm_s24le'],
  },
  webm: {
    videoEncoder: 'libvpx-vp9',
    audioEncoder: 'libopus',
    audioKbps: 96,
    keepsRotation: false,
    videoCopies: ['vp8', 'vp9', 'av1'],
    audioCopies: ['opus', 'vorbis'],
  },
  avi: {
    videoEncoder: 'mpeg4',
    audioEncoder: 'libmp3lame',
    audioKbps: 160,
    keepsRotation: false,
    videoCopies: ['mpeg4', 'mjpeg'],
    audioCopies: ['mp3', 'ac3', 'pcm_s16le'],
  },
};

/** The encoders a container is written with and the codecs it holds as they are. */
export const videoTargetOf = (format: VideoOutputFormat): Readonly<VideoTarget> => targets[format];

/** Per quality level: x264 preset and CRF, VP9 CRF, MPEG-4 quantiser. */
const levels: Readonly<
  Record<VideoQuality, { preset: string; crf: number; vp9Crf: number; mpeg4Q: number }>
> = {
  low: { preset: 'veryfast', crf: 28, vp9Crf: 42, mpeg4Q: 8 },
  medium: { preset: 'veryfast', crf: 23, vp9Crf: 35, mpeg4Q: 5 },
  high: { preset: 'faster', crf: 19, vp9Crf: 30, mpeg4Q: 3 },
};

export function videoEncodeOptions(encoder: VideoEncoder, quality: VideoQuality): string[] {
  const level = levels[quality];
  switch (encoder) {
    case 'libx264':
      return ['-c:v', 'libx264', '-preset', level.preset, '-crf', String(level.crf), '-pix_fmt', 'yuv420p'];
    case 'libvpx-vp9':
      // Realtime mode with the fastest speed step: the difference between a request and a timeout.
      // No look-ahead: libvpx would otherwise hold 25 frames more (43 bytes a pixel; 4K: 1071 →
      // 716 MiB), which realtime mode hardly uses.
      return [
        '-c:v',
        'libvpx-vp9',
        '-deadline',
        'realtime',
        '-cpu-used',
        '8',
        '-row-mt',
        '1',
        '-lag-in-frames',
        '0',
        '-crf',
        String(level.vp9Crf),
        '-b:v',
        '0',
        '-pix_fmt',
        'yuv420p',
      ];
    case 'mpeg4':
      return ['-c:v', 'mpeg4', '-vtag', 'xvid', '-q:v', String(level.mpeg4Q), '-pix_fmt', 'yuv420p'];
  }
}

const even = (value: number) => Math.max(2, 2 * Math.round(value / 2));

/** The picture as a player shows it: pixel aspect applied, rotation turned. */
export function displaySize(stream: StreamInfo): { width: number; height: number } | undefined {
  if (!stream.width || !stream.height) return undefined;
  const width = stream.width * (stream.pixelAspect ?? 1);
  const turned = stream.rotation === 90 || stream.rotation === 270;
  return turned ? { width: stream.height, height: width } : { width, height: stream.height };
}

/**
 * The output size: the asked width and/or height with the aspect ratio kept (both: the largest
 * size that fits inside that box), rounded to even numbers as 4:2:0 encoders need.
 */
export function fitDimensions(
  source: { width: number; height: number },
  width: number | undefined,
  height: number | undefined,
): { width: number; height: number } {
  const aspect = source.width / source.height;
  if (width !== undefined && height !== undefined) {
    const scale = Math.min(width / source.width, height / source.height);
    return { width: even(source.width * scale), height: even(source.height * scale) };
  }
  if (width !== undefined) return { width: even(width), height: even(width / aspect) };
  if (height !== undefined) return { width: even(height * aspect), height: even(height) };
  return { width: even(source.width), height: even(source.height) };
}

export interface VideoPlan {
  job: FfmpegJob;
  videoCodec: string;
  audioCodec: string | undefined;
}

/** The whole ffmpeg job for a video conversion; pure, so the choices can be tested without running it. */
export function planVideo(
  input: MediaInput,
  info: MediaInfo,
  options: VideoOptions,
  output: string,
): VideoPlan {
  const video = requireStream(info, 'video');
  const audio = options.mute ? undefined : firstStream(info, 'audio');
  const target = targets[options.outputFormat];
  const shown = displaySize(video);
  const size = shown
    ? boundedOutputSize(fitDimensions(shown, options.width, options.height), options)
    : undefined;
  // Frames reach the filters already turned upright (ffmpeg's autorotate).
  const turned = video.rotation === 90 || video.rotation === 270;
  const frame = turned
    ? { width: video.height, height: video.width }
    : { width: video.width, height: video.height };
  const resized =
    size !== undefined &&
    (size.width !== frame.width || size.height !== frame.height || video.pixelAspect !== undefined);
  const retimed = options.fps !== undefined && Math.abs(options.fps - (video.fps ?? 0)) > 0.001;
  const seconds = trimmedSeconds(info, options);
  if (retimed) assertFramesAtRate(options.fps ?? 0, seconds);
  const cut = (options.start ?? 0) > 0;
  const copyVideo =
    target.videoCopies.includes(video.codec) &&
    options.quality === undefined &&
    !resized &&
    !retimed &&
    !cut &&
    (video.rotation === undefined || target.keepsRotation);
  if (!copyVideo && size && shown) {
    assertEncoderFits(target.videoEncoder, size, options, (field, value) =>
      fitDimensions(shown, field === 'width' ? value : undefined, field === 'height' ? value : undefined),
    );
  }
  const copyAudio = audio !== undefined && target.audioCopies.includes(audio.codec) && !cut;

  const { rate, outputSeconds } = reencodeTiming(info, options, {
    sourceFps: video.fps,
    seconds,
    retimed,
    reencoded: !copyVideo,
  });
  const filters = [
    ...(resized && size ? [`scale=${size.width}:${size.height}`, 'setsar=1'] : []),
    ...(rate !== undefined ? [`fps=${Number(rate.toFixed(3))}`] : []),
  ];
  const videoOptions = copyVideo
    ? ['-c:v', 'copy', ...(video.codec === 'hevc' && target.keepsRotation ? ['-tag:v', 'hvc1'] : [])]
    : [
        ...(filters.length > 0 ? ['-vf', filters.join(',')] : []),
        ...videoEncodeOptions(target.videoEncoder, options.quality ?? 'medium'),
      ];
  const audioOptions =
    audio === undefined
      ? ['-an']
      : [
          '-map',
          `0:${audio.index}`,
          ...(copyAudio ? ['-c:a', 'copy'] : ['-c:a', target.audioEncoder, '-b:a', `${target.audioKbps}k`]),
        ];
  const trim = trimOptions({ ...options, duration: outputSeconds });
  return {
    videoCodec: copyVideo ? 'copy' : target.videoEncoder,
    audioCodec: audio === undefined ? undefined : copyAudio ? 'copy' : target.audioEncoder,
    job: {
      input: input.path,
      demuxer: demuxerOf[input.format],
      inputOptions: trim.input,
      output,
      outputOptions: [
        '-map',
        `0:${video.index}`,
        ...videoOptions,
        ...audioOptions,
        ...trim.output,
        ...encoderThreads(),
        '-max_muxing_queue_size',
        '1024',
        ...(faststartFormats.has(options.outputFormat) ? ['-movflags', '+faststart'] : []),
        '-f',
        muxerOf[options.outputFormat],
      ],
      expectedSeconds: seconds,
    },
  };
}

/**
 * The frame rate a re-encode is put on and the seconds it is cut at. Where the packets told where
 * the media ends, a re-encode ends there too. The encoder gives the last frame a frame's length at
 * the stream's rate, which in a file that states no frame durations (a recorder's WebM, frames only
 * when the picture changed) runs past the end: 4.24 s of packets became 4.5 s of mp4. So frames are
 * put on a grid of at least 25 a second and cut half a grid frame past the end (the last frame's
 * own start, where nothing states its length, is kept): the result ends within one grid frame of
 * the source. An asked duration shorter than the source is cut as it is.
 */
function reencodeTiming(
  info: MediaInfo,
  options: VideoOptions,
  video: { sourceFps: number | undefined; seconds: number | undefined; retimed: boolean; reencoded: boolean },
): { rate: number | undefined; outputSeconds: number | undefined } {
  const end = info.durationFromPackets && video.reencoded ? video.seconds : undefined;
  const rate = video.retimed
    ? options.fps
    : end !== undefined
      ? Math.min(120, Math.max(25, video.sourceFps ?? 25))
      : undefined;
  if (end === undefined || rate === undefined) return { rate, outputSeconds: options.duration };
  const rest = (info.durationSeconds ?? 0) - (options.start ?? 0);
  const asked = options.duration !== undefined && options.duration < rest;
  return { rate, outputSeconds: asked ? options.duration : end + 0.5 / rate };
}

/**
 * 400 validation_failed when the asked frame rate leaves the part converted without a frame: the
 * fps filter puts a frame at each tick of the new rate, and a length under one tick has none.
 */
export function assertFramesAtRate(fps: number, seconds: number | undefined): void {
  if (seconds === undefined || seconds <= 0 || fps * seconds >= 1) return;
  const lowest = Math.min(120, Math.ceil(1000 / seconds) / 1000);
  throw new ApiError(
    'validation_failed',
    `fps: at ${fps} frames per second the ${Number(seconds.toFixed(3))} s converted would hold no frame; ask for at least ${lowest}.`,
  );
}

/** Converts a video into another container, copying streams where they fit. */
export function convertVideo(
  input: MediaInput,
  options: VideoOptions,
  context: MediaContext,
): Promise<MediaFile> {
  return convertMedia(
    input,
    options,
    context,
    'video',
    (info, bounded, output) => planVideo(input, info, bounded, output).job,
  );
}
