import { ApiError } from '#shared/errors.ts';
import { type AudioOutputFormat, demuxerOf, type VideoOutputFormat } from '#shared/media/formats.ts';
import { MediaTimeoutError, MediaToolError, runFfprobe } from '#shared/media/run.ts';

/**
 * ffmpeg can succeed and still write a file no decoder reads: a WAV with a header and no samples
 * becomes an MP3 of tags and an empty Xing frame. So a result is read back before it is sent: the
 * stream it was made for must decode to at least one frame. Only its first packets are decoded,
 * so the check costs the same for any length.
 */

/** Packets of the stream decoded; a few, because an encoder's first packets may hold no frame yet. */
const packetsRead = 8;

const verifyTimeoutMs = 15_000;

const nothingDecoded = (needs: 'audio' | 'video') =>
  new ApiError(
    'invalid_source_file',
    `No ${needs} could be decoded from the source: it holds no ${needs === 'audio' ? 'samples' : 'frames'} that could be read.`,
  );

/** 400 invalid_source_file unless the result's first audio (or video) stream decodes to a frame. */
export async function assertOutputDecodes(
  path: string,
  format: AudioOutputFormat | VideoOutputFormat,
  needs: 'audio' | 'video',
  signal?: AbortSignal,
): Promise<void> {
  let frames = 0;
  try {
    const report = await runFfprobe(path, demuxerOf[format], {
      timeoutMs: verifyTimeoutMs,
      signal,
      report: [
        '-select_streams',
        needs === 'audio' ? 'a:0' : 'v:0',
        '-count_frames',
        '-read_intervals',
        `%+#${packetsRead}`,
        '-show_entries',
        'stream=nb_read_frames',
      ],
    });
    frames = Number(report.streams?.[0]?.nb_read_frames ?? 0) || 0;
  } catch (error) {
    if (signal?.aborted) throw error;
    // The result could not be opened at all: nothing in it decodes.
    const unreadable =
      error instanceof MediaToolError &&
      (error.outcome === 'refused' || error.outcome === 'unreadable-report');
    if (!unreadable && !(error instanceof MediaTimeoutError)) throw error;
    throw nothingDecoded(needs);
  }
  if (frames < 1) throw nothingDecoded(needs);
}
