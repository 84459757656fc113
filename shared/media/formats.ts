import type { SourceFormat } from '#shared/source/formats.ts';

/** Every audio or video format the media routes read; what is missing is found by probing. */
export const mediaSourceFormats = [
  'mp3',
  'wav',
  'ogg',
  'aac',
  'flac',
  'm4a',
  'mp4',
  'webm',
  'mkv',
  'mov',
  'avi',
] as const satisfies readonly SourceFormat[];
export type MediaSourceFormat = (typeof mediaSourceFormats)[number];

export const audioOutputFormats = ['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a'] as const;
export type AudioOutputFormat = (typeof audioOutputFormats)[number];

export const videoOutputFormats = ['mp4', 'webm', 'mkv', 'mov', 'avi'] as const;
export type VideoOutputFormat = (typeof videoOutputFormats)[number];

/** Animations /video-convert writes: frames on a palette computed from the clip (gif), or animated WebP. */
export const animationFormats = ['gif', 'webp'] as const;
export type AnimationFormat = (typeof animationFormats)[number];

export const isAnimationFormat = (format: string): format is AnimationFormat =>
  (animationFormats as readonly string[]).includes(format);

export const imageOutputFormats = ['jpg', 'png', 'webp'] as const;
export type ImageOutputFormat = (typeof imageOutputFormats)[number];

/**
 * The one demuxer each sniffed format is read with. Forcing it means ffmpeg never guesses from the
 * bytes, so a file can never be taken for a playlist (hls, concat) that reaches other files.
 */
export const demuxerOf: Readonly<Record<MediaSourceFormat, string>> = {
  mp3: 'mp3',
  wav: 'wav',
  ogg: 'ogg',
  aac: 'aac',
  flac: 'flac',
  m4a: 'mov',
  mp4: 'mov',
  mov: 'mov',
  webm: 'matroska',
  mkv: 'matroska',
  avi: 'avi',
};

export const isMediaSourceFormat = (format: SourceFormat | undefined): format is MediaSourceFormat =>
  format !== undefined && (mediaSourceFormats as readonly string[]).includes(format);

type OutputFormat = AudioOutputFormat | VideoOutputFormat | ImageOutputFormat | AnimationFormat;

export const contentTypeOf: Readonly<Record<OutputFormat, string>> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  gif: 'image/gif',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

/** The ffmpeg muxer that writes each output format. */
export const muxerOf: Readonly<Record<AudioOutputFormat | VideoOutputFormat, string>> = {
  mp3: 'mp3',
  wav: 'wav',
  ogg: 'ogg',
  aac: 'adts',
  flac: 'flac',
  m4a: 'ipod',
  mp4: 'mp4',
  webm: 'webm',
  mkv: 'matroska',
  mov: 'mov',
  avi: 'avi',
};

/** Containers that get their index moved to the front, so that playback starts before the download ends. */
export const faststartFormats: ReadonlySet<string> = new Set(['m4a', 'mp4', 'mov']);

/** How hard /video-convert compresses: a speed/size/quality preset of the encoder. */
export const videoQualities = ['low', 'medium', 'high'] as const;
export type VideoQuality = (typeof videoQualities)[number];
