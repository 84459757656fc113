import { stat } from 'node:fs/promises';
import { HttpError } from '#shared/http/errors.ts';
import type { MediaSourceFormat } from '#shared/media/formats.ts';
import { formatSeconds } from '#shared/media/limits.ts';
import { type MediaInfo, probeMedia } from '#shared/media/probe.ts';
import { type FfmpegJob, MediaTimeoutError, runFfmpeg } from '#shared/media/run.ts';
import { mapNativeError } from '#shared/native-errors.ts';
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
}

export const defaultTimeouts = {
  probeMs: 30_000,
  convertMs: 600_000,
  thumbnailMs: 60_000,
} as const;

/** Timeouts become 413 with advice; everything else goes through the native-error table. */
function publicError(error: unknown, timeoutMs: number): never {
  if (error instanceof MediaTimeoutError) {
    throw new HttpError(
      'media_too_long',
      `The conversion did not finish within ${formatSeconds(timeoutMs / 1000)}; convert a shorter part (start, duration) or a smaller size.`,
      { cause: error },
    );
  }
  return mapNativeError('ffmpeg', error);
}

/** Probes the source; unreadable files answer 400 through the native-error table. */
export async function inspectMedia(
  input: MediaInput,
  context: Pick<MediaContext, 'signal'>,
): Promise<MediaInfo> {
  const timeoutMs = defaultTimeouts.probeMs;
  try {
    return await probeMedia(input.path, input.format, { timeoutMs, signal: context.signal });
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return publicError(error, timeoutMs);
  }
}

/** Runs one ffmpeg job under the context's deadline and abort signal; the output must not be empty. */
export async function runMediaJob(
  job: FfmpegJob,
  context: MediaContext,
  defaultTimeoutMs: number = defaultTimeouts.convertMs,
): Promise<void> {
  const timeoutMs = context.timeoutMs ?? defaultTimeoutMs;
  try {
    await runFfmpeg(job, { timeoutMs, signal: context.signal, onProgress: context.onProgress });
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return publicError(error, timeoutMs);
  }
  const size = await stat(job.output).then(
    (stats) => stats.size,
    () => 0,
  );
  if (size === 0)
    throw new HttpError('invalid_source_file', 'No audio or video could be decoded from the source.');
}
