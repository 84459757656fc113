import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ffmpegPath, ffprobePath } from '#shared/media/binaries.ts';
import { MediaFixtures, probe } from './fixtures.ts';

const fixtures = new MediaFixtures();
let outDir: string;

beforeAll(async () => {
  await fixtures.open();
  outDir = await mkdtemp(join(tmpdir(), 'media-bundle-'));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(outDir, { recursive: true, force: true });
  await fixtures.close();
});

describe('the ffmpeg runner bundled as Lambda runs it (one ES module, no __dirname)', () => {
  it('loads and converts', async () => {
    const outfile = join(outDir, 'run.mjs');
    await build({
      entryPoints: ['shared/media/run.ts'],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'esm',
      logLevel: 'silent',
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    });
    // As the stack configures the function: the layer's binaries named in the environment.
    vi.stubEnv('FFMPEG_PATH', ffmpegPath);
    vi.stubEnv('FFPROBE_PATH', ffprobePath);
    const bundled = (await import(pathToFileURL(outfile).href)) as typeof import('#shared/media/run.ts');
    const source = await fixtures.path('mp4');
    const output = join(outDir, 'out.mkv');
    await bundled.runFfmpeg(
      { input: source, demuxer: 'mov', output, outputOptions: ['-c', 'copy', '-f', 'matroska'] },
      { timeoutMs: 30_000 },
    );
    expect((await probe(output)).video?.codec_name).toBe('h264');
    const raw = await bundled.runFfprobe(source, 'mov', { timeoutMs: 30_000 });
    expect(raw.streams?.length).toBe(2);
  });
});
