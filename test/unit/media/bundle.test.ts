import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegPath, ffprobePath } from '#shared/media/binaries.ts';
import { MediaFixtures, probe } from './fixtures.ts';

const run = promisify(execFile);
const fixtures = new MediaFixtures();
let outDir: string;

beforeAll(async () => {
  await fixtures.open();
  outDir = await mkdtemp(join(tmpdir(), 'media-bundle-'));
});

afterAll(async () => {
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
    const source = await fixtures.path('mp4');
    const output = join(outDir, 'out.mkv');
    // A plain Node process, as Lambda runs the bundle: the test runner would lend the module a __dirname.
    const script = `
      const run = await import(${JSON.stringify(pathToFileURL(outfile).href)});
      await run.runFfmpeg(
        { input: ${JSON.stringify(source)}, demuxer: 'mov', output: ${JSON.stringify(output)}, outputOptions: ['-c', 'copy', '-f', 'matroska'] },
        { timeoutMs: 30000 },
      );
      const probed = await run.runFfprobe(${JSON.stringify(source)}, 'mov', { timeoutMs: 30000 });
      console.log(JSON.stringify({ streams: probed.streams.length }));
    `;
    // As the stack configures the function: the layer's binaries named in the environment.
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, FFMPEG_PATH: ffmpegPath, FFPROBE_PATH: ffprobePath },
    });
    expect(JSON.parse(stdout)).toEqual({ streams: 2 });
    expect((await probe(output)).video?.codec_name).toBe('h264');
  });
});
