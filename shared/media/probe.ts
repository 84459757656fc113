import { demuxerOf, type MediaSourceFormat } from '#shared/media/formats.ts';
import { type RawProbe, runFfprobe } from '#shared/media/run.ts';

export interface StreamInfo {
  /** `image` is a still picture attached to an audio file (cover art), not a video. */
  type: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment' | 'image';
  codec: string;
  width?: number;
  height?: number;
  fps?: number;
  sampleRate?: number;
  channels?: number;
  bitRate?: number;
  /** Clockwise rotation the player applies (phone videos), in degrees. */
  rotation?: number;
  /** Width / height of one pixel (anamorphic video), 1 when square. */
  pixelAspect?: number;
  /** The stream's index in the file, for `-map 0:<index>`. */
  index: number;
}

export interface MediaInfo {
  /** The sniffed container format, e.g. `mp4`. */
  container: MediaSourceFormat;
  durationSeconds: number | undefined;
  /** The duration was read from the packets (duration.ts), so the media ends there. */
  durationFromPackets?: boolean;
  sizeBytes: number | undefined;
  bitRate: number | undefined;
  streams: StreamInfo[];
}

const number = (value: unknown): number | undefined => {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
};

const positive = (value: unknown): number | undefined => {
  const parsed = number(value);
  return parsed !== undefined && parsed > 0 ? parsed : undefined;
};

/** `30000/1001` → 29.97; `0/0` → undefined. */
function ratio(value: unknown, separator = '/'): number | undefined {
  if (typeof value !== 'string') return undefined;
  const [top, bottom] = value.split(separator).map(Number);
  if (top === undefined || bottom === undefined || !(top > 0) || !(bottom > 0)) return undefined;
  return top / bottom;
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** Rotation from the display matrix (current ffprobe) or the legacy `rotate` tag. */
function rotationOf(stream: Record<string, unknown>): number | undefined {
  const sideData = Array.isArray(stream.side_data_list)
    ? (stream.side_data_list as Array<Record<string, unknown>>)
    : [];
  const fromMatrix = sideData.map((entry) => number(entry.rotation)).find((value) => value !== undefined);
  const tags = (stream.tags ?? {}) as Record<string, unknown>;
  const degrees = fromMatrix ?? number(tags.rotate);
  if (degrees === undefined) return undefined;
  const normalized = ((Math.round(degrees) % 360) + 360) % 360;
  return normalized === 0 ? undefined : normalized;
}

function streamInfo(stream: Record<string, unknown>): StreamInfo | undefined {
  const kind = stream.codec_type;
  const codec = typeof stream.codec_name === 'string' ? stream.codec_name : 'unknown';
  const index = number(stream.index) ?? 0;
  const bitRate = positive(stream.bit_rate);
  const common = { codec, index, ...(bitRate ? { bitRate: Math.round(bitRate) } : {}) };
  if (kind === 'video') {
    const attached = ((stream.disposition ?? {}) as Record<string, unknown>).attached_pic === 1;
    const width = positive(stream.width);
    const height = positive(stream.height);
    const fps = attached ? undefined : (ratio(stream.avg_frame_rate) ?? ratio(stream.r_frame_rate));
    const rotation = rotationOf(stream);
    const pixelAspect = ratio(stream.sample_aspect_ratio, ':');
    return {
      type: attached ? 'image' : 'video',
      ...common,
      ...(width ? { width } : {}),
      ...(height ? { height } : {}),
      ...(fps ? { fps: round(fps, 3) } : {}),
      ...(rotation ? { rotation } : {}),
      ...(pixelAspect && pixelAspect !== 1 ? { pixelAspect } : {}),
    };
  }
  if (kind === 'audio') {
    const sampleRate = positive(stream.sample_rate);
    const channels = positive(stream.channels);
    return {
      type: 'audio',
      ...common,
      ...(sampleRate ? { sampleRate } : {}),
      ...(channels ? { channels } : {}),
    };
  }
  if (kind === 'subtitle' || kind === 'data' || kind === 'attachment') return { type: kind, ...common };
  return undefined;
}

/** Turns ffprobe's report into our shape; the duration falls back to the longest stream. */
export function mediaInfoFrom(raw: RawProbe, container: MediaSourceFormat): MediaInfo {
  const format = raw.format ?? {};
  const streams = raw.streams ?? [];
  const longestStream = Math.max(0, ...streams.map((stream) => positive(stream.duration) ?? 0));
  const duration = positive(format.duration) ?? (longestStream > 0 ? longestStream : undefined);
  const bitRate = positive(format.bit_rate);
  return {
    container,
    durationSeconds: duration === undefined ? undefined : round(duration, 3),
    sizeBytes: positive(format.size),
    bitRate: bitRate === undefined ? undefined : Math.round(bitRate),
    streams: streams.map(streamInfo).filter((stream) => stream !== undefined),
  };
}

export interface ProbeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Probes a downloaded source with the demuxer its sniffed format calls for. */
export async function probeMedia(
  path: string,
  format: MediaSourceFormat,
  options: ProbeOptions,
): Promise<MediaInfo> {
  return mediaInfoFrom(await runFfprobe(path, demuxerOf[format], options), format);
}

export const firstStream = (info: MediaInfo, type: 'audio' | 'video'): StreamInfo | undefined =>
  info.streams.find((stream) => stream.type === type);
