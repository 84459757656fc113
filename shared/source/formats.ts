/** Every format any operation takes as input, by its canonical lowercase name. */
export const sourceFormats = [
  'jpg',
  'png',
  'webp',
  'avif',
  'heic',
  'svg',
  'gif',
  'tiff',
  'bmp',
  'ico',
  'pdf',
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
] as const;

export type SourceFormat = (typeof sourceFormats)[number];

export const isSourceFormat = (value: unknown): value is SourceFormat =>
  typeof value === 'string' && (sourceFormats as readonly string[]).includes(value);
