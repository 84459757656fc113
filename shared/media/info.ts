import { packetScanTimeoutMs, withRealDuration } from '#shared/media/duration.ts';
import { inspectMedia, type MediaInput } from '#shared/media/job.ts';
import type { MediaInfoResult } from '#shared/media/schemas.ts';

/** Time kept to answer after the packet read: past it, the header's figure is reported instead. */
const answerMarginMs = 3000;

/** The packet read's time: its own bound, shortened to what the request has left (a buffered answer has 29 s). */
function scanTime(deadline: number | undefined): number {
  const left = (deadline ?? Number.POSITIVE_INFINITY) - answerMarginMs - Date.now();
  return Math.max(1, Math.min(packetScanTimeoutMs, left));
}

/**
 * The public description of a source: container, duration, size, bit rate and every stream. The
 * duration is read from the packets when the header lacks it or only estimates it (duration.ts).
 */
export async function describeMedia(
  input: MediaInput & { sizeBytes: number },
  context: { signal?: AbortSignal; deadline?: number | undefined },
): Promise<MediaInfoResult> {
  const header = await inspectMedia(input, context);
  const info = await withRealDuration(input, header, {
    signal: context.signal,
    timeoutMs: scanTime(context.deadline),
  });
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
