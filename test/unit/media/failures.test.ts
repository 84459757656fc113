import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { publicMediaError } from '#shared/media/failures.ts';
import type { MediaSourceFormat } from '#shared/media/formats.ts';
import { inspectMedia, type MediaContext, runMediaJob } from '#shared/media/job.ts';
import { type FfmpegJob, MediaTimeoutError, MediaToolError } from '#shared/media/run.ts';
import { Workspace } from '#shared/workspace.ts';
import { childMediaProcesses, MediaFixtures } from './fixtures.ts';

const run = promisify(execFile);
const fixtures = new MediaFixtures();
/** Where outputs go; a folder of its own, so that no request workspace seems left behind. */
let dir: string;
// runMediaJob writes to the job's output and never asks this workspace for a file.
const context: MediaContext = { workspace: new Workspace(), tier: 'free', maxMediaSeconds: 120 };

beforeAll(async () => {
  await fixtures.open();
  dir = await mkdtemp(join(tmpdir(), 'media-failures-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await fixtures.close();
});

/** Whatever a promise rejects with. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );

const probeFailure = (path: string, format: MediaSourceFormat) =>
  rejection(inspectMedia({ path, format, baseName: 'x' }, {}));

/** Resolves once a tool runs as a child of this process, with its pid. */
async function runningChild(): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const [child] = await childMediaProcesses();
    if (child) return child.pid;
    await sleep(10);
  }
  throw new Error('no ffmpeg or ffprobe started');
}

/** An mp3 whose ID3 title is 9 MB of text: ffprobe's report of it passes 8 MB. */
async function mp3WithHugeTitle(): Promise<string> {
  const synchsafe = (size: number) =>
    Buffer.from([(size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f]);
  const text = Buffer.concat([Buffer.from([3]), Buffer.alloc(9_000_000, 'a')]);
  const frame = Buffer.concat([Buffer.from('TIT2'), synchsafe(text.length), Buffer.from([0, 0]), text]);
  const tag = Buffer.concat([Buffer.from('ID3\x04\x00\x00', 'latin1'), synchsafe(frame.length), frame]);
  return fixtures.save('huge-title.mp3', Buffer.concat([tag, await fixtures.bytes('mp3')]));
}

describe('ffprobe ran and refused the downloaded file: the caller’s bad input', () => {
  it.each([
    // No line of the log names the file: the new ffprobe cannot open the decoder of 65 281 channels.
    [
      'a WAV of 65 281 channels',
      'wav',
      [
        [22, 1],
        [23, 255],
      ],
      undefined,
      /Too many channels/,
    ],
    ['a FLAC of 32 bytes', 'flac', [], 32, /: Input\/output error$/m],
  ] as const)(
    '%s, whose message no rule knows → 400 invalid_source_file',
    async (_name, format, edits, keep, log) => {
      const bytes = Buffer.from(await fixtures.bytes(format));
      for (const [at, value] of edits) bytes[at] = value;
      const error = await probeFailure(
        await fixtures.save(`refused.${format}`, bytes.subarray(0, keep)),
        format,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        code: 'invalid_source_file',
        message: 'The source could not be read as audio or video: its header is damaged or incomplete.',
      });
      const cause = (error as ApiError).cause as MediaToolError;
      expect(cause).toMatchObject({ tool: 'ffprobe', outcome: 'refused' });
      expect(cause.message).toMatch(log);
    },
  );

  it('a file whose report passes 8 MB (a 9 MB tag) → 400 invalid_source_file, not a timeout', async () => {
    const error = await probeFailure(await mp3WithHugeTitle(), 'mp3');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_source_file', message: expect.stringMatching(/metadata/) });
    expect((error as ApiError).cause).toMatchObject({ tool: 'ffprobe', outcome: 'report-too-large' });
    expect(await childMediaProcesses()).toEqual([]);
  });
});

describe('failures that are ours stay as they are, to become a 500', () => {
  it('ffprobe handed a file that is not there (the workspace failed, not the caller)', async () => {
    const error = await probeFailure(join(dir, 'never-written.wav'), 'wav');
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error).toMatchObject({ tool: 'ffprobe', outcome: 'refused' });
    expect((error as Error).message).toMatch(/No such file or directory/);
  });

  it('ffprobe killed by a signal this code did not send', async () => {
    // Opening a FIFO blocks until a writer comes, so the process waits there to be killed.
    const fifo = join(dir, 'blocked.wav');
    await run('mkfifo', [fifo]);
    const probing = probeFailure(fifo, 'wav');
    process.kill(await runningChild(), 'SIGKILL');
    const error = await probing;
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error).toMatchObject({ tool: 'ffprobe', outcome: 'killed' });
  });

  it('ffmpeg killed by a signal this code did not send', async () => {
    // Opening a FIFO blocks until a writer comes, so ffmpeg is still running when it is killed,
    // however slow the machine is to find it.
    const fifo = join(dir, 'blocked.mp4');
    await run('mkfifo', [fifo]);
    const job: FfmpegJob = {
      input: fifo,
      demuxer: 'mov',
      inputOptions: [],
      output: join(dir, 'killed.mp4'),
      outputOptions: ['-c', 'copy', '-f', 'mp4'],
    };
    const converting = rejection(runMediaJob(job, context));
    process.kill(await runningChild(), 'SIGKILL');
    const error = await converting;
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error).toMatchObject({ tool: 'ffmpeg', outcome: 'killed' });
  });

  it('ffmpeg refusing what this code asked of it (an unknown encoder), on a sound file', async () => {
    const job: FfmpegJob = {
      input: await fixtures.path('wav'),
      demuxer: 'wav',
      output: join(dir, 'unknown-encoder.mp3'),
      outputOptions: ['-c:a', 'no_such_encoder', '-f', 'mp3'],
    };
    const error = await rejection(runMediaJob(job, context));
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error).toMatchObject({ tool: 'ffmpeg', outcome: 'refused' });
    expect((error as Error).message).toMatch(/Unknown encoder 'no_such_encoder'/);
  });

  it('ffprobe exiting 0 without a readable report, or anything that is no tool failure', () => {
    const unreadable = new MediaToolError('ffprobe', 'unreadable-report', 'output is no JSON');
    expect(() => publicMediaError(unreadable, 'probe')).toThrow(unreadable);
    const bug = new TypeError('x is undefined');
    expect(() => publicMediaError(bug, 'conversion')).toThrow(bug);
  });
});

describe('a deadline means what the stage makes of it', () => {
  it('a probe past 30 s met a file built to keep it busy → 400 invalid_source_file', () => {
    const late = new MediaTimeoutError(30_000);
    expect(() => publicMediaError(late, 'probe')).toThrow(
      expect.objectContaining({
        code: 'invalid_source_file',
        message: expect.stringMatching(/header could not be read within 30 s/),
        cause: late,
      }),
    );
  });

  it('a conversion past 10 min → 413 media_too_long naming the limit of every tier', () => {
    expect(() => publicMediaError(new MediaTimeoutError(600_000), 'conversion')).toThrow(
      expect.objectContaining({
        code: 'media_too_long',
        message: expect.stringMatching(/within 10 min, the processing time of one conversion on every tier/),
      }),
    );
  });
});
