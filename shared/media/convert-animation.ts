import { ApiError } from '#shared/errors.ts';
import { assertFramesAtRate, displaySize, fitDimensions } from '#shared/media/convert-video.ts';
import { withRealDuration } from '#shared/media/duration.ts';
import { assertEncoderFits } from '#shared/media/encoder-bounds.ts';
import { type AnimationFormat, contentTypeOf, demuxerOf, type VideoQuality } from '#shared/media/formats.ts';
import { boundedOutputSize } from '#shared/media/frame-bounds.ts';
import {
  assertNoOverrun,
  inspectMedia,
  type MediaContext,
  type MediaFile,
  type MediaInput,
  NothingDecodedError,
  runMediaJob,
} from '#shared/media/job.ts';
import { assertDurationWithinTier, assertWithinDuration, requireStream } from '#shared/media/limits.ts';
import {
  boundedTrim,
  encoderThreads,
  overrunSeconds,
  trimmedSeconds,
  trimOptions,
} from '#shared/media/options.ts';
import type { MediaInfo } from '#shared/media/probe.ts';
import type { FfmpegJob, FfmpegRun } from '#shared/media/run.ts';

/**
 * /video-convert to an animation: GIF in two passes (a palette computed from the clip's own colours,
 * then the frames mapped onto it with error diffusion), or animated WebP in one (full colour, lossy).
 */

export interface AnimationOptions {
  outputFormat: AnimationFormat;
  width?: number | undefined;
  height?: number | undefined;
  quality?: VideoQuality | undefined;
  fps?: number | undefined;
  start?: number | undefined;
  duration?: number | undefined;
  mute?: boolean | undefined;
  loop?: boolean | undefined;
}

/** What an animation is made at when nothing is asked: 10 frames a second, at most 480 pixels wide. */
export const animationDefaults = { fps: 10, maxWidth: 480 } as const;

/**
 * The most frames an animation holds (five minutes at the default rate): every frame of a GIF or
 * WebP is a whole picture, with no motion prediction between them, so its size grows with each.
 */
export const maxAnimationFrames = 3000;

/** Animated WebP's quality factor (0–100) by level. */
const webpQuality: Readonly<Record<VideoQuality, number>> = { low: 50, medium: 75, high: 90 };

/** The frame size: the asked width and/or height (aspect kept), else the source's, at most 480 wide. */
export function animationSize(
  shown: { width: number; height: number },
  options: Pick<AnimationOptions, 'width' | 'height'>,
): { width: number; height: number } {
  if (options.width !== undefined || options.height !== undefined) {
    return fitDimensions(shown, options.width, options.height);
  }
  return fitDimensions(shown, Math.min(shown.width, animationDefaults.maxWidth), undefined);
}

/** 400 validation_failed when the part converted at the asked rate would be more frames than an animation holds. */
export function assertAnimationFrames(fps: number, seconds: number | undefined): void {
  if (seconds === undefined) return;
  const frames = Math.ceil(fps * seconds);
  if (frames <= maxAnimationFrames) return;
  const longest = Math.floor((maxAnimationFrames / fps) * 1000) / 1000;
  const fastest = Math.floor((maxAnimationFrames / seconds) * 1000) / 1000;
  throw new ApiError(
    'validation_failed',
    `duration: ${Number(seconds.toFixed(3))} s at ${fps} frames a second would be ${frames} frames; an animation holds at most ${maxAnimationFrames}. Ask for a duration of at most ${longest} s, or an fps of at most ${fastest}.`,
  );
}

/**
 * The ffmpeg jobs of an animation, in order; pure, so the choices can be tested without running
 * them. GIF: the palette pass writes `palette` (a 16 × 16 PNG), the second pass reads it beside the
 * source. WebP: one job.
 */
export function planAnimation(
  input: MediaInput,
  info: MediaInfo,
  options: AnimationOptions,
  output: string,
  palette: string,
): FfmpegJob[] {
  const video = requireStream(info, 'video');
  const shown = displaySize(video) ?? {
    width: animationDefaults.maxWidth,
    height: animationDefaults.maxWidth,
  };
  const size = boundedOutputSize(animationSize(shown, options), options);
  const encoder = options.outputFormat === 'gif' ? 'gif' : 'libwebp_anim';
  assertEncoderFits(encoder, size, options, (field, value) =>
    fitDimensions(shown, field === 'width' ? value : undefined, field === 'height' ? value : undefined),
  );
  const fps = options.fps ?? animationDefaults.fps;
  const seconds = trimmedSeconds(info, options);
  assertFramesAtRate(fps, seconds);
  assertAnimationFrames(fps, seconds);
  const frames = `fps=${Number(fps.toFixed(3))},scale=${size.width}:${size.height}:flags=lanczos,setsar=1`;
  const trim = trimOptions(options);
  const loop = options.loop ?? true;
  const common = {
    input: input.path,
    demuxer: demuxerOf[input.format],
    inputOptions: trim.input,
    expectedSeconds: seconds,
  };
  if (options.outputFormat === 'webp') {
    return [
      {
        ...common,
        output,
        outputOptions: [
          ...['-map', `0:${video.index}`, '-an', '-vf', frames],
          ...['-c:v', 'libwebp_anim', '-quality', String(webpQuality[options.quality ?? 'medium'])],
          // The WebP muxer counts plays: 0 repeats for ever, 1 plays once.
          ...['-loop', loop ? '0' : '1'],
          ...trim.output,
          ...encoderThreads(),
          ...['-f', 'webp'],
        ],
      },
    ];
  }
  const paletteJob: FfmpegJob = {
    ...common,
    output: palette,
    outputOptions: [
      ...['-map', `0:${video.index}`, '-an', '-vf', `${frames},palettegen=stats_mode=full`],
      ...trim.output,
      ...encoderThreads(),
      ...['-c:v', 'png', '-update', '1', '-f', 'image2'],
    ],
  };
  const gifJob: FfmpegJob = {
    ...common,
    moreInputs: [{ path: palette, demuxer: 'image2' }],
    output,
    outputOptions: [
      '-filter_complex',
      `[0:${video.index}]${frames}[frames];[frames][1:v]paletteuse=dither=sierra2_4a[out]`,
      ...['-map', '[out]', '-an'],
      // The GIF muxer's loop: 0 repeats for ever, -1 writes no loop block (one play).
      ...['-loop', loop ? '0' : '-1'],
      ...trim.output,
      ...encoderThreads(),
      ...['-f', 'gif'],
    ],
  };
  return [paletteJob, gifJob];
}

/** The jobs' progress as one: each job is an equal share. */
const shareOf = (context: MediaContext, index: number, count: number): MediaContext => ({
  ...context,
  ...(context.onProgress
    ? { onProgress: (percent: number) => context.onProgress?.((100 * index + percent) / count) }
    : {}),
});

/** Converts the first video stream of a source into an animated GIF or WebP. */
export async function convertAnimation(
  input: MediaInput,
  options: AnimationOptions,
  context: MediaContext,
): Promise<MediaFile> {
  const header = await inspectMedia(input, context);
  requireStream(header, 'video');
  const info = await withRealDuration(input, header, {
    stopAfterSeconds: context.maxMediaSeconds + overrunSeconds,
    signal: context.signal,
  });
  assertDurationWithinTier(info, context.tier, context.maxMediaSeconds);
  assertWithinDuration(info, 'start', options.start);
  const output = await context.workspace.file(`output.${options.outputFormat}`);
  const palette = await context.workspace.file('palette.png');
  const jobs = planAnimation(input, info, boundedTrim(options, context.maxMediaSeconds), output, palette);
  let run: FfmpegRun | undefined;
  for (const [index, job] of jobs.entries()) {
    run = await runMediaJob(job, shareOf(context, index, jobs.length));
  }
  if (run === undefined || !run.frames) throw new NothingDecodedError();
  assertNoOverrun(run, info, options.start, context);
  return {
    path: output,
    contentType: contentTypeOf[options.outputFormat],
    fileName: `${input.baseName}.${options.outputFormat}`,
  };
}
