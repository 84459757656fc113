import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { convertAudio } from '#shared/media/convert-audio.ts';
import type { MediaSourceFormat } from '#shared/media/formats.ts';
import { inspectMedia } from '#shared/media/job.ts';
import { MediaToolError } from '#shared/media/run.ts';
import { mapNativeError, nativeErrorRules } from '#shared/native-errors.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import { MediaFixtures, type Recipe } from './fixtures.ts';

const fixtures = new MediaFixtures();
const workspace = fixturesWithWorkspace(fixtures);

const ffmpegRules = nativeErrorRules.filter((rule) => rule.engine === 'ffmpeg');

interface Damage {
  /** Bytes kept from the start: a count, or half the file. */
  keep?: number | 'half';
  /** Bytes of noise appended. */
  noise?: number;
  /** [offset, value] pairs written over the copy. */
  edits?: ReadonlyArray<readonly [number, number]>;
}

/** A broken copy of a fixture. */
async function broken(recipe: Recipe, { keep, noise = 0, edits = [] }: Damage): Promise<string> {
  const bytes = Buffer.from(await fixtures.bytes(recipe));
  for (const [at, value] of edits) bytes[at] = value;
  const head = keep === undefined ? bytes : bytes.subarray(0, keep === 'half' ? bytes.length >> 1 : keep);
  const name = `${recipe}-${keep}-${noise}-${edits.map((edit) => edit.join('=')).join(',')}`;
  return fixtures.save(name, Buffer.concat([head, Buffer.alloc(noise, 0x5a)]));
}

/** Probing (ffprobe) or converting to mp3 (ffprobe accepts, ffmpeg refuses): the ApiError either answers. */
async function failure(
  path: string,
  format: MediaSourceFormat,
  stage: 'probe' | 'convert',
): Promise<ApiError> {
  const input = { path, format, baseName: 'x' };
  const error = await (stage === 'probe'
    ? inspectMedia(input, {})
    : convertAudio(input, { outputFormat: 'mp3' }, { workspace, tier: 'free', maxMediaSeconds: 120 })
  ).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

/** Real broken files, each with the log line of the tool that it is known to meet. */
const cases: ReadonlyArray<{
  name: string;
  recipe: Recipe;
  format: MediaSourceFormat;
  damage: Damage;
  stage: 'probe' | 'convert';
  log: RegExp;
  message: RegExp;
}> = [
  {
    name: 'an mp4 cut before its index',
    recipe: 'mp4',
    format: 'mp4',
    damage: { keep: 'half' },
    stage: 'probe',
    log: /moov atom not found/,
    message: /moov atom/,
  },
  {
    name: 'a WebM whose header is noise',
    recipe: 'webm',
    format: 'webm',
    damage: { keep: 16, noise: 5000 },
    stage: 'probe',
    log: /Invalid data found when processing input/,
    message: /could not be decoded/,
  },
  {
    name: 'an mp3 that ends inside its first frame',
    recipe: 'mp3',
    format: 'mp3',
    damage: { keep: 200 },
    stage: 'probe',
    log: /Failed to read frame size/,
    message: /could not be decoded/,
  },
  {
    name: 'an Ogg that ends inside its first page',
    recipe: 'ogg',
    format: 'ogg',
    damage: { keep: 'half' },
    stage: 'probe',
    log: /: End of file$/m,
    message: /ends before its first complete frame/,
  },
  {
    name: 'a Matroska file whose EBML header asks for a reader version 2 (EBMLReadVersion)',
    recipe: 'mkv',
    format: 'mkv',
    damage: { edits: [[12, 2]] },
    stage: 'probe',
    log: /Not yet implemented in FFmpeg/,
    message: /feature of its format/,
  },
  {
    name: 'a WAV whose bits per sample name no codec',
    recipe: 'wav',
    format: 'wav',
    damage: { edits: [[35, 0x80]] },
    stage: 'convert',
    log: /Decoder \(codec none\) not found for input stream #0:0/,
    message: /codec that cannot be decoded/,
  },
  {
    name: 'a WAV of 257 channels',
    recipe: 'wav',
    format: 'wav',
    damage: {
      edits: [
        [22, 1],
        [23, 1],
      ],
    },
    stage: 'convert',
    log: /Error while processing the decoded data for stream #0:0/,
    message: /impossible parameters/,
  },
  {
    name: 'a WAV of 187 channels (more than the resampler takes)',
    recipe: 'wav',
    format: 'wav',
    damage: { edits: [[22, 187]] },
    stage: 'convert',
    log: /Error while processing the decoded data for stream #0:0/,
    message: /impossible parameters/,
  },
  {
    name: 'an ADTS file of 32 bytes (sample rate, hence time base, unknown)',
    recipe: 'aac',
    format: 'aac',
    damage: { keep: 32 },
    stage: 'convert',
    log: /^\[graph_0_in_0_0 @ \S+\] Error applying options to the filter/m,
    message: /impossible parameters/,
  },
  {
    name: 'a FLAC whose first 2000 bytes hold no decodable frame',
    recipe: 'flac',
    format: 'flac',
    damage: { keep: 2000, edits: [[0, 0]] },
    stage: 'convert',
    log: /Cannot determine format of input stream 0:0 after EOF/,
    message: /no complete frame/,
  },
];

describe('ffmpeg rules of the native-error table, each met by a real broken file', () => {
  it.each(cases)(
    '$name → 400 invalid_source_file',
    async ({ recipe, format, damage, stage, log, message }) => {
      const error = await failure(await broken(recipe, damage), format, stage);
      expect(error.code).toBe('invalid_source_file');
      expect(error.message).toMatch(message);
      expect(error.message).not.toMatch(/\/|fca-|media-fixtures|ffprobe|file:/);
      expect(ffmpegRules.map((rule) => rule.message)).toContain(error.message);
      expect(error.cause).toBeInstanceOf(MediaToolError);
      expect((error.cause as Error).message).toMatch(log);
    },
  );

  it('every alternative of every ffmpeg rule is met by one of the files above', async () => {
    const logs: string[] = [];
    for (const { recipe, format, damage, stage } of cases) {
      logs.push(
        (await failure(await broken(recipe, damage), format, stage).then((error) => error.cause as Error))
          .message,
      );
    }
    for (const rule of ffmpegRules) {
      // The patterns are plain alternations: each branch on its own, with the rule's flags.
      for (const branch of rule.pattern.source.split('|')) {
        const pattern = new RegExp(branch, rule.pattern.flags);
        expect(
          logs.some((line) => pattern.test(line)),
          `${branch} is met by no file`,
        ).toBe(true);
      }
    }
  });

  it('leaves failures no rule knows as they are, to become a 500', () => {
    const unknown = new MediaToolError('ffmpeg', 'refused', 'Conversion failed! something nobody expected');
    expect(() => mapNativeError('ffmpeg', unknown)).toThrow(unknown);
  });
});
