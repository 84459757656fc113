import { engineUnavailable } from '#shared/engines.ts';
import { demuxerOf, isMediaSourceFormat, type MediaSourceFormat } from '#shared/media/formats.ts';
import { MediaTimeoutError, MediaToolError, type RawProbe, runFfprobe } from '#shared/media/run.ts';
import type { SourceFormat } from '#shared/source/formats.ts';
import { sniffFormat } from '#shared/source/sniff.ts';

/**
 * The byte sniffer reads a few fixed signatures; real files stray from them (an ID3 tag whose size
 * is off, a codec it has no entry for, a brand it does not know). When it cannot name a file,
 * ffprobe's own probe is asked, allowed to choose only among the demuxers the routes read with,
 * so that a playlist or any other format stays refused. What it picks is then forced on every later
 * run, as a sniffed format is.
 */

/** Every demuxer the media routes read with, once each. */
const allowedDemuxers = [...new Set(Object.values(demuxerOf))];

/** A look at a file's head takes well under a second; this is only a bound. */
const identifyTimeoutMs = 10_000;

const codecsOf = (probe: RawProbe) =>
  (probe.streams ?? [])
    .filter((stream) => stream.codec_type === 'audio' || stream.codec_type === 'video')
    .map((stream) => String(stream.codec_name ?? ''));

const webmCodecs: ReadonlySet<string> = new Set(['vp8', 'vp9', 'av1', 'opus', 'vorbis']);

/** ffprobe's demuxer name (`mov,mp4,m4a,3gp,3g2,mj2`) → the format name the routes use. */
export function formatFromProbe(probe: RawProbe): MediaSourceFormat | undefined {
  const names = String(probe.format?.format_name ?? '').split(',');
  const codecs = codecsOf(probe);
  if (codecs.length === 0) return undefined;
  const hasVideo = (probe.streams ?? []).some(
    (stream) =>
      stream.codec_type === 'video' &&
      (stream.disposition as Record<string, unknown> | undefined)?.attached_pic !== 1,
  );
  if (names.includes('mov')) {
    const brand = String((probe.format?.tags as Record<string, unknown> | undefined)?.major_brand ?? '');
    if (!hasVideo) return 'm4a';
    return brand.trim() === 'qt' ? 'mov' : 'mp4';
  }
  if (names.includes('matroska')) return codecs.every((codec) => webmCodecs.has(codec)) ? 'webm' : 'mkv';
  const name = names[0];
  return isMediaSourceFormat(name as SourceFormat) ? (name as MediaSourceFormat) : undefined;
}

/** ffprobe's reading of a file the sniffer could not name; undefined when it reads no audio or video. */
export async function probeFormat(
  path: string,
  signal?: AbortSignal,
): Promise<MediaSourceFormat | undefined> {
  try {
    return formatFromProbe(await runFfprobe(path, allowedDemuxers, { timeoutMs: identifyTimeoutMs, signal }));
  } catch (error) {
    if (signal?.aborted) throw error;
    // The tool ran and could not read the file (or took too long to): not a format we read. A tool
    // that could not run at all is the service's failure and stays one.
    if (error instanceof MediaTimeoutError) return undefined;
    if (error instanceof MediaToolError && error.outcome === 'not-started')
      throw engineUnavailable('ffmpeg', error);
    if (error instanceof MediaToolError && error.outcome !== 'not-started' && error.outcome !== 'killed') {
      return undefined;
    }
    throw error;
  }
}

/** The format of a downloaded media source: the sniffer's answer, else ffprobe's. */
export async function identifyMediaFormat(
  path: string,
  signal?: AbortSignal,
): Promise<SourceFormat | undefined> {
  return (await sniffFormat(path)) ?? (await probeFormat(path, signal));
}
