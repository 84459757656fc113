import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sniffFormat } from '#shared/source/sniff.ts';

/**
 * file-type names container variants by their own extensions (apng, m4b, ogv, spx…); each must
 * fold into the format whose reader takes it, or the source is refused as unsupported. Samples of
 * every variant are not worth generating: file-type's answer is stubbed, the folding is ours.
 */
const named = vi.hoisted(() => ({ ext: 'png', mime: 'image/png' }));

vi.mock('file-type', async (original) => ({
  ...(await original<typeof import('file-type')>()),
  fileTypeFromTokenizer: async () => ({ ext: named.ext, mime: named.mime }),
}));

let path = '';
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sniff-aliases-'));
  path = join(dir, 'source');
  await writeFile(path, 'any bytes: the type is stubbed');
});
afterAll(() => rm(join(path, '..'), { recursive: true, force: true }));

describe('container variants fold into the format that reads them', () => {
  it.each([
    ['apng', 'png'],
    ['mp1', 'mp3'],
    ['mp2', 'mp3'],
    ['oga', 'ogg'],
    ['ogv', 'ogg'],
    ['opus', 'ogg'],
    ['spx', 'ogg'],
    ['ogm', 'ogg'],
    ['ogx', 'ogg'],
    ['m4b', 'm4a'],
    ['f4a', 'm4a'],
    ['m4v', 'mp4'],
    ['f4v', 'mp4'],
    ['tif', 'tiff'],
  ])('%s is read as %s', async (ext, format) => {
    named.ext = ext;
    expect(await sniffFormat(path)).toBe(format);
  });

  it('a type the service has no reader for is no format', async () => {
    named.ext = 'exe';
    expect(await sniffFormat(path)).toBeUndefined();
  });
});
