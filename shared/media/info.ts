import { inspectMedia, type MediaInput } from '#shared/media/job.ts';
import type { MediaInfoResult } from '#shared/media/schemas.ts';

/** The public description of a source: container, duration, size, bit rate and every stream. */
export async function describeMedia(
  input: MediaInput & { sizeBytes: number },
  context: { signal?: AbortSignal },
): Promise<MediaInfoResult> {
  const info = await inspectMedia(input, context);
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
