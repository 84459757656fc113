import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { runMediaJob } from '#shared/media/job.ts';
import { MediaTimeoutError, runFfmpeg, runFfprobe } from '#shared/media/run.ts';
import { Workspace } from '#shared/workspace.ts';
import { referenceFfprobe } from '../../support/reference-tools.ts';
import { childMediaProcesses, MediaFixtures, probe } from './fixtures.ts';

const run = promisify(execFile);
const fixtures = new MediaFixtures();
let source: string;
let workspace: Workspace;

beforeAll(async () => {
  await fixtures.open();
  source = await fixtures.path('twoSeconds');
  workspace = new Workspace();
});

afterAll(async () => {
  await workspace.dispose();
  await fixtures.close();
});

/**
 * `-re` reads the input at its own pace, so a two-second source keeps ffmpeg busy for two seconds:
 * long enough to be stopped in the middle, whatever the machine's speed.
 */
const realtimeJob = async (name: string) => ({
  input: source,
  demuxer: 'mov',
  inputOptions: ['-re'],
  output: await workspace.file(name),
  outputOptions: ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-f', 'mp4'],
  expectedSeconds: 2,
});

/**
 * A job whose input is a FIFO nobody writes: ffmpeg blocks opening it and runs until it is
 * stopped, however slow the machine is to find it.
 */
const blockedJob = async (name: string) => {
  const fifo = await workspace.file(`${name}.fifo`);
  await run('mkfifo', [fifo]);
  return { ...(await realtimeJob(name)), input: fifo, inputOptions: [] };
};

/** Resolves once ffmpeg runs as a child of this process, with its pid. */
async function runningChild(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const [child] = await childMediaProcesses();
    if (child) return child.pid;
    await sleep(10);
  }
  throw new Error('ffmpeg never started');
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('runFfmpeg', () => {
  it('reports progress up to 100 and writes the result', async () => {
    const seen: number[] = [];
    const job = await realtimeJob('progress.mp4');
    await runFfmpeg(job, { timeoutMs: 30_000, onProgress: (percent) => seen.push(percent) });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(100);
    expect(seen.some((percent) => percent > 0 && percent < 100)).toBe(true);
    expect((await probe(job.output)).duration).toBeCloseTo(2, 0);
  });

  it('kills the process with SIGKILL at the deadline and leaves nothing behind', async () => {
    // The job can never finish (its input never comes), so only the deadline ends it; six seconds
    // leave a loaded machine time to see the process before that. The outcome is taken at once, so
    // a deadline that comes first is never an unhandled rejection.
    const outcome = runFfmpeg(await blockedJob('timeout.mp4'), { timeoutMs: 6000 }).catch(
      (caught: unknown) => caught,
    );
    const pid = await runningChild();
    const error = await outcome;
    expect(error).toBeInstanceOf(MediaTimeoutError);
    expect((error as MediaTimeoutError).timeoutMs).toBe(6000);
    expect(alive(pid)).toBe(false);
    expect(await childMediaProcesses()).toEqual([]);
  });

  it('kills the process when the request is aborted', async () => {
    const controller = new AbortController();
    const running = runFfmpeg(await blockedJob('abort.mp4'), {
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    const pid = await runningChild();
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(alive(pid)).toBe(false);
    expect(await childMediaProcesses()).toEqual([]);
  });

  it('never starts when the signal is already aborted, even before the spawn', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(
      runFfmpeg(await realtimeJob('never.mp4'), { timeoutMs: 30_000, signal: controller.signal }),
    ).rejects.toThrow('gone');
    // An abort while fluent-ffmpeg prepares (before the process exists) must still end it.
    const late = new AbortController();
    const running = runFfmpeg(await realtimeJob('late.mp4'), { timeoutMs: 30_000, signal: late.signal });
    late.abort(new Error('late'));
    await expect(running).rejects.toThrow('late');
    expect(await childMediaProcesses()).toEqual([]);
  });

  it('a conversion past its deadline answers 413 media_too_long, saying no tier lifts that limit', async () => {
    const job = await realtimeJob('public-timeout.mp4');
    const error = await runMediaJob(job, {
      workspace,
      tier: 'free',
      maxMediaSeconds: 120,
      timeoutMs: 300,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'media_too_long' });
    const message = (error as Error).message;
    expect(message).toMatch(
      /did not finish within 0\.3 s, the processing time of one conversion on every tier/,
    );
    expect(message).toMatch(/shorter part of the source \(start, duration\)/);
    // Not the tier's duration limit: no tier is offered, and the source's length is not blamed.
    expect(message).not.toMatch(/\b(free|pro|enterprise)\b|lasts/);
    expect(await childMediaProcesses()).toEqual([]);
  });

  it('capturing a frame past its deadline answers 400 invalid_source_file, suggesting an earlier time', async () => {
    const job = await realtimeJob('frame-timeout.mp4');
    const error = await runMediaJob(
      job,
      { workspace, tier: 'free', maxMediaSeconds: 120, timeoutMs: 300 },
      'frame',
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_source_file' });
    expect((error as Error).message).toMatch(/No frame could be decoded within 0\.3 s.*earlier time \(at\)/);
    expect(await childMediaProcesses()).toEqual([]);
  });
});

describe('runFfprobe', () => {
  it('reads a playlist only as the forced demuxer sees it: never as HLS or concat, never its targets', async () => {
    // A target with a media extension, which ffprobe's own HLS demuxer would accept.
    const target = await fixtures.save('segment.mp4', await fixtures.bytes('twoSeconds'));
    const playlist = await fixtures.save(
      'list.m3u8',
      `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:${target}\n#EXT-X-ENDLIST\n`,
    );
    const concat = await fixtures.save('list.ffconcat', 'ffconcat version 1.0\nfile segment.mp4\n');
    for (const file of [playlist, concat]) {
      for (const demuxer of ['mov', 'matroska', 'mp3', 'wav', 'ogg', 'aac', 'flac', 'avi']) {
        const streams = await runFfprobe(file, demuxer, { timeoutMs: 10_000 }).then(
          (raw) => raw.streams ?? [],
          () => [],
        );
        expect(streams.filter((stream) => stream.codec_type === 'video')).toEqual([]);
      }
    }
    // Left to guess, ffprobe reads both as playlists and opens the file they name: the forced demuxer is what stops it.
    for (const file of [playlist, concat]) {
      const { stdout } = await run(referenceFfprobe, [
        '-v',
        'error',
        '-protocol_whitelist',
        'file',
        '-show_streams',
        file,
      ]);
      expect(stdout).toContain('codec_type=video');
    }
  });
});
