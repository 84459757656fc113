import { contentTypeOf, demuxerOf, type ImageOutputFormat } from '#shared/media/formats.ts';
import { assertThumbnailWidth } from '#shared/media/frame-bounds.ts';
import {
  inspectMedia,
  type MediaContext,
  type MediaFile,
  type MediaInput,
  NothingDecodedError,
  runMediaJob,
} from '#shared/media/job.ts';
import { assertWithinDuration, requireStream } from '#shared/media/limits.ts';
import type { MediaInfo } from '#shared/media/probe.ts';
import type { FfmpegJob } from '#shared/media/run.ts';

export interface ThumbnailOptions {
  /** Seconds into the video; default 10 % of its duration. */
  at?: number | undefined;
  outputFormat: ImageOutputFormat;
  width?: number | undefined;
}

const imageEncoders: Readonly<Record<ImageOutputFormat, string[]>> = {
  jpg: ['-c:v', 'mjpeg', '-q:v', '2', '-pix_fmt', 'yuvj420p'],
  png: ['-c:v', 'png'],
  webp: ['-c:v', 'libwebp', '-quality', '85'],
};

/** Where to capture: the asked moment, or 10 % in; kept a frame short of the end so a frame exists. */
export function captureTime(info: MediaInfo, at: number | undefined): number {
  const duration = info.durationSeconds;
  if (duration === undefined) return at ?? 0;
  const wanted = at ?? duration * 0.1;
  const fps = info.streams.find((stream) => stream.type === 'video')?.fps ?? 25;
  return Math.max(0, Math.min(wanted, duration - 1 / fps));
}

export function planThumbnail(
  input: MediaInput,
  info: MediaInfo,
  options: ThumbnailOptions,
  output: string,
): FfmpegJob {
  const video = requireStream(info, 'video');
  assertThumbnailWidth(video, options.width);
  const at = captureTime(info, options.at);
  return {
    input: input.path,
    demuxer: demuxerOf[input.format],
    inputOptions: at > 0 ? ['-ss', String(Number(at.toFixed(3)))] : [],
    output,
    outputOptions: [
      '-map',
      `0:${video.index}`,
      '-frames:v',
      '1',
      ...(options.width !== undefined ? ['-vf', `scale=${options.width}:-2`] : []),
      ...imageEncoders[options.outputFormat],
      '-f',
      'image2',
      '-update',
      '1',
    ],
  };
}

/** One frame of a video as an image. Reading one frame costs the same for any length, so no tier limit. */
export async function captureThumbnail(
  input: MediaInput,
  options: ThumbnailOptions,
  context: MediaContext,
): Promise<MediaFile> {
  const info = await inspectMedia(input, context);
  requireStream(info, 'video');
  assertWithinDuration(info, 'at', options.at);
  const output = await context.workspace.file(`thumbnail.${options.outputFormat}`);
  try {
    await runMediaJob(planThumbnail(input, info, options, output), context, 'frame');
  } catch (error) {
    // The default time is read from the header, which can overstate the length (a recorder's
    // clip of 0.07 s that says 5 s) or put 10 % after a short clip's only frames: ffmpeg then
    // finds no frame past it. The first decodable frame is the thumbnail instead; a time the
    // caller asked for is kept to.
    if (!(error instanceof NothingDecodedError) || options.at !== undefined) throw error;
    if (captureTime(info, undefined) === 0) throw error;
    await runMediaJob(planThumbnail(input, info, { ...options, at: 0 }, output), context, 'frame');
  }
  return {
    path: output,
    contentType: contentTypeOf[options.outputFormat],
    fileName: `${input.baseName}.${options.outputFormat}`,
  };
}
