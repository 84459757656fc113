import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '#shared/http/errors.ts';
import type { MediaSourceFormat } from '#shared/media/formats.ts';
import { inspectMedia } from '#shared/media/job.ts';
import { MediaToolError } from '#shared/media/run.ts';
import { mapNativeError, nativeErrorRules } from '#shared/native-errors.ts';
import { MediaFixtures, type Recipe } from './fixtures.ts';

const fixtures = new MediaFixtures();

beforeAll(async () => {
  await fixtures.open();
});

afterAll(async () => {
  await fixtures.close();
});

const ffmpegRules = nativeErrorRules.filter((rule) => rule.engine === 'ffmpeg');

/** A broken copy of a fixture: its first bytes, optionally followed by noise. */
async function broken(recipe: Recipe, keep: number | 'half', noise = 0): Promise<string> {
  const bytes = await fixtures.bytes(recipe);
  const head = bytes.subarray(0, keep === 'half' ? Math.floor(bytes.length / 2) : keep);
  const junk = Buffer.alloc(noise, 0x5a);
  return fixtures.save(`${recipe}-${keep}-${noise}`, Buffer.concat([head, junk]));
}

async function probeError(path: string, format: MediaSourceFormat): Promise<HttpError> {
  const error = await inspectMedia({ path, format, baseName: 'x' }, {}).catch((caught: unknown) => caught);
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return error;
}

describe('ffmpeg rules of the native-error table, each met by a real broken file', () => {
  it.each([
    ['an mp4 cut before its index', 'mp4', 'half', 0, 'mp4', /moov atom/],
    ['a WebM whose header is noise', 'webm', 16, 5000, 'webm', /could not be decoded/],
    ['an mp3 that ends inside its first frame', 'mp3', 200, 0, 'mp3', /could not be decoded/],
    [
      'an Ogg that ends inside its first page',
      'ogg',
      'half',
      0,
      'ogg',
      /ends before its first complete frame/,
    ],
  ] as const)('%s → 400 invalid_source_file', async (_name, recipe, keep, noise, format, message) => {
    const error = await probeError(await broken(recipe, keep, noise), format);
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/\/|fca-|media-fixtures|ffprobe|file:/);
    expect(ffmpegRules.map((rule) => rule.message)).toContain(error.message);
  });

  it('every ffmpeg rule is met by one of the files above', async () => {
    const cases: Array<[Recipe, number | 'half', number, MediaSourceFormat]> = [
      ['mp4', 'half', 0, 'mp4'],
      ['webm', 16, 5000, 'webm'],
      ['mp3', 200, 0, 'mp3'],
      ['ogg', 'half', 0, 'ogg'],
    ];
    const met = new Set<string>();
    for (const [recipe, keep, noise, format] of cases) {
      met.add((await probeError(await broken(recipe, keep, noise), format)).message);
    }
    expect([...met].sort()).toEqual([...new Set(ffmpegRules.map((rule) => rule.message))].sort());
  });

  it('leaves failures no rule knows as they are, to become a 500', () => {
    const unknown = new MediaToolError('ffmpeg', 'Conversion failed! something nobody expected');
    expect(() => mapNativeError('ffmpeg', unknown)).toThrow(unknown);
  });
});
