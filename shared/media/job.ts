import { stat } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { ApiError } from '#shared/errors.ts';
import { withRealDuration } from '#shared/media/duration.ts';
import { type MediaStage, publicMediaError } from '#shared/media/failures.ts';
import {
  type AudioOutputFormat,
  contentTypeOf,
  type MediaSourceFormat,
  type VideoOutputFormat,
} from '#shared/media/formats.ts';
import { assertDurationWithinTier, assertWithinDuration, requireStream } from '#shared/media/limits.ts';
import { boundedTrim, overrunSeconds, type Trim } from '#shared/media/options.ts';
import { type MediaInfo, probeMedia } from '#shared/media/probe.ts';
import { type FfmpegJob, type FfmpegRun, runFfmpeg } from '#shared/media/run.ts';
import { assertOutputDecodes } from '#shared/media/verify.ts';
import type { TierName } from '#shared/tiers.ts';
import type { Workspace } from '#shared/workspace.ts';

/** A downloaded source, as the converters take it. */
export interface MediaInput {
  path: string;
  format: MediaSourceFormat;
  /** The name results are given, without extension. */
  baseName: string;
}

/** The request's side of a conversion: where to write, what the tier allows, when to stop. */
export interface MediaContext {
  workspace: Workspace;
  tier: TierName;
  maxMediaSeconds: number;
  signal?: AbortSignal;
  /** Percent done, 0–100 (async jobs report it). */
  onProgress?: (percent: number) => void;
  /** Deadline for the ffmpeg run; the process is killed past it. */
  timeoutMs?: number;
}

/** A result file in the workspace, ready to be streamed back. */
export interface MediaFile {
  path: string;
  contentType: string;
  fileName: string;
  /** Headers the answer carries beside the file's own. */
  headers?: Record<string, string>;
}

/** How long each stage may run before its process is killed. */
export const defaultTimeouts: Readonly<Record<MediaStage, number>> = {
  probe: 30_000,
  frame: 60_000,
  conversion: 600_000,
};

/** Probes the source; unreadable files answer 400 (see failures.ts). */
export async function inspectMedia(
  input: MediaInput,
  context: Pick<MediaContext, 'signal'>,
): Promise<MediaInfo> {
  try {
    return await probeMedia(input.path, input.format, {
      timeoutMs: defaultTimeouts.probe,
      signal: context.signal,
    });
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return publicMediaError(error, 'probe');
  }
}

/** ffmpeg ran to its end and wrote nothing: no frame of the source could be decoded where it read. */
export class NothingDecodedError extends ApiError {
  constructor() {
    super('invalid_source_file', 'No audio or video could be decoded from the source.');
  }
}

/**
 * Runs one ffmpeg job under its stage's deadline (or the context's) and abort signal; the output
 * file must not be empty. A job that writes to `pipe:1` streams into `sink`, which judges what came.
 */
export async function runMediaJob(
  job: FfmpegJob,
  context: MediaContext,
  stage: Exclude<MediaStage, 'probe'> = 'conversion',
  sink?: Writable,
): Promise<FfmpegRun> {
  const timeoutMs = context.timeoutMs ?? defaultTimeouts[stage];
  let run: FfmpegRun;
  try {
    run = await runFfmpeg(job, {
      timeoutMs,
      signal: context.signal,
      onProgress: context.onProgress,
      ...(sink ? { sink } : {}),
    });
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return publicMediaError(error, stage);
  }
  // A sink judges what it was sent; the null muxer (`-`) writes nothing by design.
  if (sink || job.output === '-') return run;
  const size = await stat(job.output).then(
    (stats) => stats.size,
    () => 0,
  );
  if (size === 0) throw new NothingDecodedError();
  return run;
}

/**
 * 413 media_too_long when a run wrote past the tier's limit: only a source that goes on past the
 * limit fills the margin the cut (`boundedTrim`) leaves.
 */
export function assertNoOverrun(
  run: FfmpegRun,
  info: MediaInfo,
  start: number | undefined,
  context: Pick<MediaContext, 'tier' | 'maxMediaSeconds'>,
): void {
  if (run.seconds === undefined || run.seconds <= context.maxMediaSeconds + overrunSeconds / 2) return;
  assertDurationWithinTier(
    { ...info, durationSeconds: Math.max(run.seconds + (start ?? 0), info.durationSeconds ?? 0) },
    context.tier,
    context.maxMediaSeconds,
  );
}

/**
 * A conversion into an audio or video file: the source is probed and checked (the stream it
 * needs, the tier's duration, read from the packets where the header's cannot be trusted, a start
 * inside it), then the job `plan` makes of it runs, cut a little past the tier's limit whatever the
 * header said: a result that reaches past the limit means the source went on, and answers 413.
 * A result is sent only once its stream decodes.
 */
export async function convertMedia<
  Options extends Trim & { outputFormat: AudioOutputFormat | VideoOutputFormat },
>(
  input: MediaInput,
  options: Options,
  context: MediaContext,
  needs: 'audio' | 'video',
  plan: (info: MediaInfo, bounded: Options, output: string) => FfmpegJob,
): Promise<MediaFile> {
  const header = await inspectMedia(input, context);
  requireStream(header, needs);
  const info = await withRealDuration(input, header, {
    stopAfterSeconds: context.maxMediaSeconds + overrunSeconds,
    signal: context.signal,
  });
  assertDurationWithinTier(info, context.tier, context.maxMediaSeconds);
  assertWithinDuration(info, 'start', options.start);
  const output = await context.workspace.file(`output.${options.outputFormat}`);
  const run = await runMediaJob(plan(info, boundedTrim(options, context.maxMediaSeconds), output), context);
  assertNoOverrun(run, info, options.start, context);
  await assertOutputDecodes(output, options.outputFormat, needs, context.signal);
  return {
    path: output,
    contentType: contentTypeOf[options.outputFormat],
    fileName: `${input.baseName}.${options.outputFormat}`,
  };
}
