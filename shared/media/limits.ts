import { ApiError } from '#shared/errors.ts';
import { assertSourceFrames } from '#shared/media/frame-bounds.ts';
import type { MediaInfo, StreamInfo } from '#shared/media/probe.ts';
import { firstStream } from '#shared/media/probe.ts';
import { type TierName, tiers, tierThatLifts } from '#shared/tiers.ts';

/** As the tier table states durations: `120` → `120 s`, `1800` → `30 min`. */
export function formatSeconds(seconds: number): string {
  if (seconds >= 600 && Number.isInteger(seconds / 60)) return `${seconds / 60} min`;
  return `${Number(seconds.toFixed(1))} s`;
}

/** 413 media_too_long when the source lasts longer than the tier allows, naming the tier that lifts it. */
export function assertDurationWithinTier(
  info: MediaInfo,
  tier: TierName,
  maxSeconds: number,
  subject = 'The source lasts',
): void {
  const duration = info.durationSeconds;
  if (duration === undefined || duration <= maxSeconds) return;
  const lift = tierThatLifts((limits) => limits.maxMediaSeconds >= duration);
  const hint =
    lift && lift !== tier
      ? ` The ${lift} tier accepts media up to ${formatSeconds(tiers[lift].maxMediaSeconds)}.`
      : ' No tier accepts media this long; cut it into shorter parts first.';
  throw new ApiError(
    'media_too_long',
    `${subject} ${formatSeconds(duration)}, over the ${formatSeconds(maxSeconds)} limit of the ${tier} tier.${hint}`,
  );
}

/**
 * The first stream of the kind an operation needs, or 400 no_audio_stream / no_video_stream. Work
 * that needs video decodes frames, so their size is checked here, before it starts.
 */
export function requireStream(info: MediaInfo, type: 'audio' | 'video'): StreamInfo {
  const stream = firstStream(info, type);
  if (stream && type === 'video') assertSourceFrames(info);
  if (stream) return stream;
  if (!info.streams.some((entry) => entry.type === 'audio' || entry.type === 'video')) {
    throw new ApiError(
      'invalid_source_file',
      'The source holds no audio or video stream that could be read.',
    );
  }
  throw type === 'audio'
    ? new ApiError('no_audio_stream', 'The source has no audio stream.')
    : new ApiError('no_video_stream', 'The source has no video stream (a cover picture does not count).');
}

/** 400 invalid_range when a time lies at or past the end of the source. */
export function assertWithinDuration(info: MediaInfo, field: string, seconds: number | undefined): void {
  const duration = info.durationSeconds;
  if (seconds === undefined || duration === undefined || seconds < duration) return;
  throw new ApiError(
    'invalid_range',
    `${field}: ${Number(seconds.toFixed(3))} s is not before the end of the source (${formatSeconds(duration)}).`,
  );
}
