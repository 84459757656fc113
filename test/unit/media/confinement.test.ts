import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ffmpegPath, ffprobePath } from '#shared/media/binaries.ts';
import { childMediaProcesses, MediaFixtures, probe } from './fixtures.ts';

/**
 * Every process the media code starts, seen from outside: FFMPEG_PATH and FFPROBE_PATH name
 * scripts that write down their arguments and then run the real binary. The media modules are
 * loaded afresh after the variables are set, since the paths are read once, when they load.
 */
const fixtures = new MediaFixtures();
let dir: string;
let log: string;
let source: string;
let media: {
  convertVideo: typeof import('#shared/media/convert-video.ts').convertVideo;
  runFfmpeg: typeof import('#shared/media/run.ts').runFfmpeg;
  workspace: import('#shared/workspace.ts').Workspace;
};

/** A script that appends `<name> <args…>` (tab-separated, one write) to the log and runs `real`. */
const wrapper = (name: string, real: string) =>
  [
    '#!/bin/sh',
    `line='${name}'`,
    'for arg in "$@"; do line="$line\t$arg"; done',
    `printf '%s\\n' "$line" >> '${log}'`,
    `exec '${real}' "$@"`,
    '',
  ].join('\n');

async function install(name: 'ffmpeg' | 'ffprobe', real: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, wrapper(name, real));
  await chmod(path, 0o755);
  return path;
}

/** The processes started since the log was last emptied, as tool name and arguments. */
async function started(): Promise<Array<{ tool: string; args: string[] }>> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [tool = '', ...args] = line.split('\t');
      return { tool, args };
    });
}

/** The input is read as `file:<source>` only, through the file protocol and the named demuxer. */
function expectConfined({ tool, args }: { tool: string; args: string[] }, demuxer: string, file = source) {
  const input = args.indexOf(`file:${file}`);
  expect(input).toBeGreaterThan(0);
  const before = args.slice(0, input);
  expect(before.join(' ')).toContain('-protocol_whitelist file');
  expect(before.join(' ')).toContain(`-f ${demuxer}`);
  // One input, nothing else opened as one.
  expect(args.filter((arg) => arg === '-i')).toHaveLength(tool === 'ffmpeg' ? 1 : 0);
  expect(args.filter((arg) => arg.startsWith('file:'))).toEqual([`file:${file}`]);
}

beforeAll(async () => {
  await fixtures.open();
  source = await fixtures.path('twoSeconds');
  dir = await mkdtemp(join(tmpdir(), 'media-wrappers-'));
  log = join(dir, 'started.log');
  vi.stubEnv('FFMPEG_PATH', await install('ffmpeg', ffmpegPath));
  vi.stubEnv('FFPROBE_PATH', await install('ffprobe', ffprobePath));
  vi.resetModules();
  const { Workspace } = await import('#shared/workspace.ts');
  media = {
    convertVideo: (await import('#shared/media/convert-video.ts')).convertVideo,
    runFfmpeg: (await import('#shared/media/run.ts')).runFfmpeg,
    workspace: new Workspace(),
  };
});

beforeEach(async () => {
  await writeFile(log, '');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await media.workspace.dispose();
  await fixtures.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a conversion that reports progress', () => {
  it('starts ffprobe and ffmpeg confined to the downloaded file, then ffprobe confined to the result, and nothing else', async () => {
    const seen: number[] = [];
    const result = await media.convertVideo(
      { path: source, format: 'mp4', baseName: 'clip' },
      { outputFormat: 'webm', quality: 'low' },
      {
        workspace: media.workspace,
        tier: 'pro',
        maxMediaSeconds: 1800,
        onProgress: (percent) => seen.push(percent),
      },
    );

    const processes = await started();
    expect(processes.map((process) => process.tool)).toEqual(['ffprobe', 'ffmpeg', 'ffprobe']);
    for (const process of processes.slice(0, 2)) expectConfined(process, 'mov');
    // The result is read back before it is sent (verify.ts): its first frames must decode.
    expectConfined(processes[2] ?? { tool: 'none', args: [] }, 'matroska', result.path);
    expect(seen.length).toBeGreaterThan(0);
    for (const percent of seen) {
      expect(percent).toBeGreaterThanOrEqual(0);
      expect(percent).toBeLessThanOrEqual(100);
    }
    expect(seen.at(-1)).toBe(100);
    expect((await probe(result.path)).video?.codec_name).toBe('vp9');
    expect(await childMediaProcesses()).toEqual([]);
  });

  it('reads its percentages from ffmpeg’s own stats, without a process of fluent-ffmpeg’s', async () => {
    const seen: number[] = [];
    // `-re` reads the source at its own pace: two seconds of work, so ffmpeg reports on the way.
    await media.runFfmpeg(
      {
        input: source,
        demuxer: 'mov',
        inputOptions: ['-re'],
        output: await media.workspace.file('paced.mkv'),
        outputOptions: ['-c', 'copy', '-f', 'matroska'],
        expectedSeconds: 2,
      },
      { timeoutMs: 30_000, onProgress: (percent) => seen.push(percent) },
    );

    const processes = await started();
    expect(processes.map((process) => process.tool)).toEqual(['ffmpeg']);
    expectConfined(processes[0] ?? { tool: 'none', args: [] }, 'mov');
    expect(seen.some((percent) => percent > 0 && percent < 100)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(100);
    expect(await childMediaProcesses()).toEqual([]);
  });
});
