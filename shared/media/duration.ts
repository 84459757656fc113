import { demuxerOf } from '#shared/media/formats.ts';
import type { MediaInput } from '#shared/media/job.ts';
import type { MediaInfo } from '#shared/media/probe.ts';
import { MediaTimeoutError, MediaToolError, runFfmpeg } from '#shared/media/run.ts';

/**
 * A header's duration is a claim. MP3 and ADTS have no index: without a Xing or VBRI frame the
 * duration is the file size over the first frame's bit rate (wrong for any VBR file), and a Xing
 * frame keeps its figure when the file is cut short, as a WAV's data size and a FLAC's total
 * samples do. Some files state none at all (a recorder's
 * WebM, a FLAC streamed before its total was known, a WAV without samples). For those the real
 * duration is read from the packets: a demux-only pass (streams copied into ffmpeg's null muxer,
 * nothing decoded) whose last time mark is where the media ends.
 */

/**
 * Audio containers whose header duration is an estimate or a figure written before the end was
 * known, rather than an index of the packets; demuxing them is cheap.
 */
const estimatedDurations: ReadonlySet<string> = new Set(['mp3', 'aac', 'wav', 'flac']);

/** Whether the header's figure needs the packets to confirm or replace it. */
export const needsPacketScan = (info: MediaInfo): boolean =>
  info.durationSeconds === undefined || estimatedDurations.has(info.container);

/** Demuxing runs far faster than real time; a source that takes longer than this is kept at its header's word. */
export const packetScanTimeoutMs = 20_000;

export interface PacketScanOptions {
  /** Read no further than this many seconds of media: enough to know a source is too long. */
  stopAfterSeconds?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Seconds of media the source's audio and video packets span, or undefined when the packets could
 * not be read (the header's figure then stands, and a conversion is still cut at the tier's limit).
 * 0 means the streams hold no packet at all.
 */
export async function scanPacketDuration(
  input: MediaInput,
  options: PacketScanOptions,
): Promise<number | undefined> {
  const stop = options.stopAfterSeconds;
  try {
    const run = await runFfmpeg(
      {
        input: input.path,
        demuxer: demuxerOf[input.format],
        inputOptions: stop !== undefined ? ['-t', String(stop)] : [],
        // The null muxer writes nothing; its name only has to be there.
        output: '-',
        outputOptions: ['-map', '0:v?', '-map', '0:a?', '-c', 'copy', '-f', 'null'],
      },
      { timeoutMs: options.timeoutMs ?? packetScanTimeoutMs, signal: options.signal },
    );
    return run.seconds;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (error instanceof MediaTimeoutError) return undefined;
    if (error instanceof MediaToolError && error.outcome === 'refused') return undefined;
    throw error;
  }
}

/**
 * The figure to report: the header's when the packets confirm it (it is the more precise, ffmpeg's
 * time mark has centiseconds), else the packets'. A scan that copied nothing (a WAV without
 * samples, or a stream ffmpeg cannot carry, such as one whose codec it does not know) only fills a
 * figure the header lacks: the conversion itself then tells which it was.
 */
export function realDuration(header: number | undefined, scanned: number | undefined): number | undefined {
  if (scanned === undefined || (scanned === 0 && header !== undefined)) return header;
  // Encoder delay and padding move the two figures by a frame or two; that is no misstatement.
  if (header !== undefined && Math.abs(header - scanned) <= Math.max(0.1, header * 0.01)) return header;
  return Number(scanned.toFixed(3));
}

/** The source's info with its duration read from the packets where the header cannot be trusted. */
export async function withRealDuration(
  input: MediaInput,
  info: MediaInfo,
  options: PacketScanOptions,
): Promise<MediaInfo> {
  if (!needsPacketScan(info)) return info;
  const scanned = await scanPacketDuration(input, options);
  const stop = options.stopAfterSeconds;
  // A scan that reached its stop saw only the start: the source lasts at least that long.
  if (scanned !== undefined && stop !== undefined && scanned >= stop - 0.05) {
    return { ...info, durationSeconds: Math.max(info.durationSeconds ?? 0, Number(scanned.toFixed(3))) };
  }
  const durationSeconds = realDuration(info.durationSeconds, scanned);
  return { ...info, durationSeconds, durationFromPackets: scanned !== undefined && scanned > 0 };
}
