import { audioFormats, imageInputFormats, videoFormats } from '#shared/formats.ts';

/** Every format any operation takes as input, by its canonical lowercase name. */
export const sourceFormats = [...imageInputFormats, 'pdf', ...audioFormats, ...videoFormats] as const;

export type SourceFormat = (typeof sourceFormats)[number];

export const isSourceFormat = (value: unknown): value is SourceFormat =>
  typeof value === 'string' && (sourceFormats as readonly string[]).includes(value);
