/**
 * The catalogue of what converts to what, stated once from the API contract. `GET /formats` serves
 * it; route schemas may import the lists. A unit test holds every route's enumerated body fields to
 * the `options` stated here, so the catalogue and the schemas cannot drift apart.
 */

/** Alternative spellings a client may send; answers always use the canonical name. */
export const formatAliases = { jpeg: 'jpg', tif: 'tiff', heif: 'heic' } as const;

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
/** No HEIC encoder is shipped: heic is an input format only. */
export const imageOutputFormats = ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff', 'bmp', 'ico', 'svg'] as const;
export const pageImageFormats = ['png', 'jpg', 'webp'] as const;
export const thumbnailFormats = ['jpg', 'png', 'webp'] as const;
export const audioFormats = ['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a'] as const;
export const videoFormats = ['mp4', 'webm', 'mkv', 'mov', 'avi'] as const;
export const pdfCompressionLevels = ['low', 'medium', 'high'] as const;
export const pdfPageSizes = ['fit', 'a4', 'letter'] as const;
export const videoQualities = ['low', 'medium', 'high'] as const;

export const hashAlgorithms = [
  'md5',
  'sha1',
  'sha256',
  'sha384',
  'sha512',
  'sha3-256',
  'sha3-512',
  'blake2b512',
] as const;
export const digestEncodings = ['hex', 'base64'] as const;
export const textEncodings = ['base64', 'base64url', 'base32', 'hex', 'url', 'html'] as const;
export const textCases = [
  'lower',
  'upper',
  'title',
  'sentence',
  'camel',
  'pascal',
  'snake',
  'kebab',
  'constant',
] as const;
export const hmacAlgorithms = ['sha256', 'sha1', 'sha384', 'sha512'] as const;
export const randomEncodings = ['hex', 'base64', 'base64url'] as const;
export const passwordHashAlgorithms = ['argon2id', 'bcrypt', 'scrypt'] as const;
export const uuidVersions = [4, 7] as const;

/**
 * Pseudo-formats of the catalogue: `json` is a JSON answer, `text` a string field of the JSON
 * request, `zip` several files in one archive, `file` any bytes at all.
 */
export const pseudoFormats = ['json', 'text', 'zip', 'file'] as const;

export interface FormatOperation {
  /** The route's path, e.g. `/image-convert`. */
  path: string;
  inputs: readonly string[];
  outputs: readonly string[];
  /** Enumerated body fields by name, with every value the route accepts (canonical spellings). */
  options?: Readonly<Record<string, readonly (string | number)[]>>;
}

export interface FormatCategory {
  /** Every input of the category's operations. */
  inputs: readonly string[];
  /** Every output of the category's operations. */
  outputs: readonly string[];
  operations: readonly FormatOperation[];
}

export const formatCategoryNames = ['image', 'pdf', 'audio', 'video', 'text', 'crypto'] as const;
export type FormatCategoryName = (typeof formatCategoryNames)[number];

const mediaInputs = [...audioFormats, ...videoFormats] as const;
const textOperation = (path: string, options?: FormatOperation['options']): FormatOperation => ({
  path,
  inputs: ['text'],
  outputs: ['json'],
  ...(options ? { options } : {}),
});

const operationsByCategory: Record<FormatCategoryName, readonly FormatOperation[]> = {
  image: [
    {
      path: '/image-convert',
      inputs: imageInputFormats,
      outputs: imageOutputFormats,
      options: { outputFormat: imageOutputFormats },
    },
    {
      path: '/image-resize',
      inputs: imageInputFormats,
      outputs: imageOutputFormats,
      options: { outputFormat: imageOutputFormats },
    },
    {
      path: '/image-optimize',
      inputs: imageInputFormats,
      outputs: imageOutputFormats,
      options: { outputFormat: imageOutputFormats },
    },
    { path: '/image-metadata', inputs: imageInputFormats, outputs: ['json'] },
  ],
  pdf: [
    { path: '/pdf-merge', inputs: ['pdf'], outputs: ['pdf'] },
    { path: '/pdf-split', inputs: ['pdf'], outputs: ['pdf', 'zip'] },
    { path: '/pdf-compress', inputs: ['pdf'], outputs: ['pdf'], options: { level: pdfCompressionLevels } },
    {
      path: '/pdf-to-image',
      inputs: ['pdf'],
      outputs: [...pageImageFormats, 'zip'],
      options: { outputFormat: pageImageFormats },
    },
    {
      path: '/image-to-pdf',
      inputs: imageInputFormats,
      outputs: ['pdf'],
      options: { pageSize: pdfPageSizes },
    },
    { path: '/pdf-info', inputs: ['pdf'], outputs: ['json'] },
  ],
  audio: [
    {
      path: '/audio-convert',
      inputs: mediaInputs,
      outputs: audioFormats,
      options: { outputFormat: audioFormats },
    },
    { path: '/media-info', inputs: mediaInputs, outputs: ['json'] },
  ],
  video: [
    {
      path: '/video-convert',
      inputs: videoFormats,
      outputs: videoFormats,
      options: { outputFormat: videoFormats, quality: videoQualities },
    },
    {
      path: '/video-extract-audio',
      inputs: videoFormats,
      outputs: audioFormats,
      options: { outputFormat: audioFormats },
    },
    {
      path: '/video-thumbnail',
      inputs: videoFormats,
      outputs: thumbnailFormats,
      options: { outputFormat: thumbnailFormats },
    },
    { path: '/media-info', inputs: mediaInputs, outputs: ['json'] },
  ],
  text: [
    textOperation('/slugify'),
    textOperation('/hash', { algorithm: hashAlgorithms, encoding: digestEncodings }),
    textOperation('/encode', { encoding: textEncodings }),
    textOperation('/decode', { encoding: textEncodings }),
    textOperation('/text-case', { case: textCases }),
    textOperation('/text-stats'),
  ],
  crypto: [
    textOperation('/hmac', { algorithm: hmacAlgorithms, encoding: digestEncodings }),
    { path: '/uuid', inputs: [], outputs: ['json'], options: { version: uuidVersions } },
    { path: '/random-bytes', inputs: [], outputs: ['json'], options: { encoding: randomEncodings } },
    { path: '/password-generate', inputs: [], outputs: ['json'] },
    textOperation('/password-hash', { algorithm: passwordHashAlgorithms }),
    textOperation('/password-verify'),
    textOperation('/jwt-decode'),
    textOperation('/jwt-verify'),
    textOperation('/encrypt'),
    textOperation('/decrypt'),
    { path: '/checksum', inputs: ['file'], outputs: ['json'], options: { algorithm: hashAlgorithms } },
  ],
};

const union = (lists: readonly (readonly string[])[]) => [...new Set(lists.flat())];

function category(operations: readonly FormatOperation[]): FormatCategory {
  return {
    inputs: union(operations.map((operation) => operation.inputs)),
    outputs: union(operations.map((operation) => operation.outputs)),
    operations,
  };
}

export const formatCatalogue: Readonly<Record<FormatCategoryName, FormatCategory>> = Object.fromEntries(
  formatCategoryNames.map((name) => [name, category(operationsByCategory[name])]),
) as Record<FormatCategoryName, FormatCategory>;

/** The canonical name of a format: `jpeg` → `jpg`; other names are returned as they are. */
export function canonicalFormat(name: string): string {
  const lower = name.toLowerCase();
  return Object.hasOwn(formatAliases, lower) ? formatAliases[lower as keyof typeof formatAliases] : lower;
}
