import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ffmpegPath } from '#shared/media/binaries.ts';
import { MediaFixtures, probe } from './fixtures.ts';

/**
 * ffmpeg is started through fluent-ffmpeg: the command line fluent-ffmpeg announces when it spawns
 * is the one the process receives, under the run's limits. fluent-ffmpeg is wrapped to hear its
 * 'start' events; FFMPEG_PATH names a script that writes down its limits and arguments and then
 * runs the real binary. The media modules are loaded afresh after the variable is set.
 */
const announced = vi.hoisted(() => ({
  lines: [] as string[],
  onStart: undefined as (() => void) | undefined,
}));
vi.mock('fluent-ffmpeg', async (importOriginal) => {
  const real = (await importOriginal<{ default: typeof import('fluent-ffmpeg') }>()).default;
  const wrapped = (...args: Parameters<typeof real>) =>
    real(...args).on('start', (line: string) => {
      announced.lines.push(line);
      announced.onStart?.();
    });
  return { default: Object.assign(wrapped, real) };
});

const fixtures = new MediaFixtures();
let dir: string;
let log: string;
let run: typeof import('#shared/media/run.ts');

beforeAll(async () => {
  await fixtures.open();
  dir = await mkdtemp(join(tmpdir(), 'media-fluent-'));
  log = join(dir, 'started.log');
  const script = join(dir, 'ffmpeg');
  // One line per process: its data limit (KiB), its CPU limit (s), then its arguments, tab-separated.
  await writeFile(
    script,
    [
      '#!/bin/sh',
      'line="$(ulimit -d)\t$(ulimit -t)"',
      'for arg in "$@"; do line="$line\t$arg"; done',
      `printf '%s\\n' "$line" >> '${log}'`,
      `exec '${ffmpegPath}' "$@"`,
      '',
    ].join('\n'),
  );
  await chmod(script, 0o755);
  vi.stubEnv('FFMPEG_PATH', script);
  // The limits scripts are written under the temporary folder: this test's own, so it can remove them.
  vi.stubEnv('TMPDIR', dir);
  vi.resetModules();
  run = await import('#shared/media/run.ts');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await fixtures.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ffmpeg started through fluent-ffmpeg', () => {
  it('runs the command fluent-ffmpeg builds, exactly as ffmpegArguments lists it, under the run’s limits', async () => {
    await writeFile(log, '');
    announced.lines.length = 0;
    const job = {
      input: await fixtures.path('twoSeconds'),
      demuxer: 'mov',
      output: join(dir, 'out.mkv'),
      // A value with one space, which fluent-ffmpeg would split in two if given the options as one list.
      outputOptions: ['-c', 'copy', '-metadata', 'title=Two words', '-f', 'matroska'],
    };
    const limits = { dataBytes: 768 * 1024 * 1024, cpuSeconds: 41 };
    await run.runFfmpeg(job, { timeoutMs: 30_000, limits });

    const args = run.ffmpegArguments(job);
    expect(announced.lines).toEqual([`ffmpeg ${args.join(' ')}`]);
    const started = (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '');
    expect(started.map((line) => line.split('\t'))).toEqual([[String(768 * 1024), '41', ...args]]);
    const written = await probe(job.output);
    expect(written.video?.codec_name).toBe('h264');
  });

  it('two runs started together each run under their own limits, though fluent-ffmpeg keeps one path', async () => {
    const jobOf = async (name: string) => ({
      input: await fixtures.path('twoSeconds'),
      demuxer: 'mov',
      output: join(dir, name),
      outputOptions: ['-c', 'copy', '-f', 'matroska'],
    });
    const runs = [
      { job: await jobOf('a.mkv'), limits: { dataBytes: 512 * 1024 * 1024, cpuSeconds: 31 } },
      { job: await jobOf('b.mkv'), limits: { dataBytes: 640 * 1024 * 1024, cpuSeconds: 37 } },
    ];
    // Once alone first, so that both scripts exist and the two runs below reach fluent-ffmpeg together.
    for (const { job, limits } of runs) await run.runFfmpeg(job, { timeoutMs: 30_000, limits });
    await writeFile(log, '');
    await Promise.all(runs.map(({ job, limits }) => run.runFfmpeg(job, { timeoutMs: 30_000, limits })));

    const started = (await readFile(log, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('\t'));
    expect(started).toHaveLength(2);
    for (const { job, limits } of runs) {
      const line = started.find((args) => args.at(-1) === job.output);
      expect(line?.slice(0, 2)).toEqual([String(limits.dataBytes / 1024), String(limits.cpuSeconds)]);
    }
  });

  it('writes a limits script again when the temporary folder has lost it, so that fluent-ffmpeg never fails to spawn', async () => {
    const job = {
      input: await fixtures.path('twoSeconds'),
      demuxer: 'mov',
      output: join(dir, 'again.mkv'),
      outputOptions: ['-c', 'copy', '-f', 'matroska'],
    };
    const limits = { dataBytes: 700 * 1024 * 1024, cpuSeconds: 43 };
    await run.runFfmpeg(job, { timeoutMs: 30_000, limits });
    const folders = (await readdir(dir)).filter((entry) => entry.startsWith('ffmpeg-launchers-'));
    expect(folders.length).toBeGreaterThan(0);
    for (const folder of folders) await rm(join(dir, folder), { recursive: true, force: true });
    await rm(job.output);

    await run.runFfmpeg(job, { timeoutMs: 30_000, limits });
    expect((await probe(job.output)).video?.codec_name).toBe('h264');
  });

  it('a run aborted while it waits for the path another run holds never starts', async () => {
    const jobOf = async (name: string) => ({
      input: await fixtures.path('twoSeconds'),
      demuxer: 'mov',
      output: join(dir, name),
      outputOptions: ['-c', 'copy', '-f', 'matroska'],
    });
    const limits = { dataBytes: 512 * 1024 * 1024, cpuSeconds: 31 };
    const first = await jobOf('first.mkv');
    const second = await jobOf('second.mkv');
    await run.runFfmpeg(first, { timeoutMs: 30_000, limits });
    await writeFile(log, '');
    // The second run is aborted when the first one's process starts, just before the path is freed.
    const controller = new AbortController();
    const reason = new Error('client went away');
    announced.onStart = () => controller.abort(reason);
    try {
      const runs = Promise.allSettled([
        run.runFfmpeg(first, { timeoutMs: 30_000, limits }),
        run.runFfmpeg(second, { timeoutMs: 30_000, limits, signal: controller.signal }),
      ]);
      expect(await runs).toEqual([
        { status: 'fulfilled', value: expect.anything() },
        { status: 'rejected', reason },
      ]);
    } finally {
      announced.onStart = undefined;
    }
    const started = (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '');
    expect(started).toHaveLength(1);
    expect(started[0]?.endsWith(first.output)).toBe(true);
  });
});
