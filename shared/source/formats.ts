/**
 * The formats the service reads, by canonical lowercase name: what a source's bytes are sniffed as.
 * Each area's own output formats and options live in its limits or formats module.
 */
export const imageInputFormats = [
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
] as const;
export const audioFormats = ['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a'] as const;
export const videoFormats = ['mp4', 'webm', 'mkv', 'mov', 'avi'] as const;

/** Every format any operation takes as input. */
export const sourceFormats = [...imageInputFormats, 'pdf', ...audioFormats, ...videoFormats] as const;

export type SourceFormat = (typeof sourceFormats)[number];

export const isSourceFormat = (value: unknown): value is SourceFormat =>
  typeof value === 'string' && (sourceFormats as readonly string[]).includes(value);

/** Alternative spellings a client may send; answers always use the canonical name. */
export const formatAliases = { jpeg: 'jpg', tif: 'tiff', heif: 'heic' } as const;

/** The canonical name of a format: `jpeg` → `jpg`; other names are returned as they are. */
export function canonicalFormat(name: string): string {
  const lower = name.toLowerCase();
  return Object.hasOwn(formatAliases, lower) ? formatAliases[lower as keyof typeof formatAliases] : lower;
}
