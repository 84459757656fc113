import { sourceContentTypeOf } from '#shared/image/formats.ts';
import { contentTypeOf as mediaContentTypeOf } from '#shared/media/formats.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import type { RouteSpec } from '#shared/routes.ts';

/*
 * What every part of the malicious-file corpus shares: the specimen record, the bait it points at,
 * and the damage done to a sound file of any format (cut, truncated, overwritten, random bytes).
 */

/**
 * Malicious and malformed sources, keyed by the input format they claim to be. Each specimen says
 * what a careful service must do with it: `refused` (a 4xx) or `bounded` (a 4xx, or a correct 2xx,
 * but always within the time limit and without leaking anything), because a damaged file of some
 * formats still decodes (a cut mp3 is a shorter mp3).
 */
export interface Specimen {
  name: string;
  bytes: Buffer;
  /** The extension the URL ends with and the Content-Type the source server claims. */
  extension: string;
  contentType: string;
  expect: 'refused' | 'bounded';
  /** When refused: the codes that fit; any 4xx when absent. */
  codes?: readonly string[];
  /** Routes that must refuse a specimen that is only `bounded` elsewhere. */
  refusedBy?: (route: RouteSpec) => boolean;
  /** A faithful render is blank white: anything drawn came from outside the file. */
  blank?: boolean;
}

export type Corpus = Record<string, Specimen[]>;

/** Routes that answer a converted file, so must decode every pixel (a metadata route reads headers only). */
export const decodingRoutes = (route: RouteSpec) => route.kind === 'file';

/** Routes that state they enforce a limit by declaring its error code. */
export const declaring = (code: string) => (route: RouteSpec) =>
  (route.errors as readonly string[]).includes(code);

/** What the corpus points at: files that must never show up in an answer, and a URL that must never be fetched. */
export interface Bait {
  /** A text file holding `token`. */
  secretText: string;
  token: string;
  /** A pure green PNG: green pixels in an answer mean it was read. */
  secretPng: string;
  /** A short MP3 (an extension that ffmpeg 5.1 still lets a playlist segment have); a playlist that reaches it would turn it into the answer. */
  secretAudio: string;
  /** A loopback URL whose every hit is counted. */
  trackerUrl: string;
}

/** What the fixture server says a specimen is, by its extension: the service's own tables. */
const mimeOf: Record<string, string> = {
  ...sourceContentTypeOf,
  ...mediaContentTypeOf,
  pdf: PDF_TYPE,
};

/** A small deterministic generator, so a failing specimen is the same bytes on the next run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function noise(length: number, seed: number): Buffer {
  const next = seeded(seed);
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) bytes[i] = Math.floor(next() * 256);
  // No format's magic starts with these bytes, so the noise can never be sniffed as something.
  bytes.write('NOIS', 0, 'latin1');
  return bytes;
}

/** The middle third overwritten with noise; header and tail intact. */
function corrupted(bytes: Buffer, seed: number): Buffer {
  const copy = Buffer.from(bytes);
  const next = seeded(seed);
  const from = Math.floor(copy.length / 3);
  const to = Math.floor((copy.length * 2) / 3);
  for (let i = from; i < to; i += 1) copy[i] = Math.floor(next() * 256);
  return copy;
}

export const damaged = (format: string, bytes: Buffer, seed: number): Specimen[] => [
  specimen(`${format}, cut to 40 %`, format, bytes.subarray(0, Math.floor(bytes.length * 0.4)), 'bounded'),
  specimen(`${format}, only its first 32 bytes`, format, bytes.subarray(0, 32), 'bounded'),
  specimen(`${format}, middle third overwritten`, format, corrupted(bytes, seed), 'bounded'),
  specimen(`random bytes named .${format}`, format, noise(4096, seed), 'refused', [
    'unsupported_input_format',
  ]),
];

export function specimen(
  name: string,
  extension: string,
  bytes: Buffer,
  expect: Specimen['expect'],
  codes?: readonly string[],
): Specimen {
  return {
    name,
    extension,
    contentType: mimeOf[extension] ?? 'application/octet-stream',
    bytes,
    expect,
    codes,
  };
}
