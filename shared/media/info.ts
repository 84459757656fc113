import { withRealDuration } from '#shared/media/duration.ts';
import { inspectMedia, type MediaInput } from '#shared/media/job.ts';
import type { MediaInfoResult } from '#shared/media/schemas.ts';

/**
 * The public description of a source: container, duration, size, bit rate and every stream. The
 * duration is read from the packets when the header lacks it or only estimates it (duration.ts).
 */
export async function describeMedia(
  input: MediaInput & { sizeBytes: number },
  context: { signal?: AbortSignal },
): Promise<MediaInfoResult> {
  const info = await withRealDuration(input, await inspectMedia(input, context), { signal: context.signal });
  return {
    container: info.container,
    durationSeconds: info.durationSeconds ?? null,
    sizeBytes: input.sizeBytes,
    bitRate: info.bitRate ?? null,
    streams: info.streams.map(({ type, codec, width, height, fps, sampleRate, channels, bitRate }) => ({
      type,
      codec,
      ...(width !== undefined ? { width } : {}),
      ...(height !== undefined ? { height } : {}),
      ...(fps !== undefined ? { fps } : {}),
      ...(sampleRate !== undefined ? { sampleRate } : {}),
      ...(channels !== undefined ? { channels } : {}),
      ...(bitRate !== undefined ? { bitRate } : {}),
    })),
  };
}
