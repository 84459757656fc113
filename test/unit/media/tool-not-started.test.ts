import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Workspace } from '#shared/workspace.ts';

/**
 * ffmpeg and ffprobe that cannot be started: the binaries this module resolves are swapped for a
 * path that does not exist and for a file that is not executable, and the media modules are loaded
 * afresh for each (fluent-ffmpeg takes its path when run.ts loads).
 */
const binaries = vi.hoisted(() => ({ path: '' }));
vi.mock('#shared/media/binaries.ts', () => ({
  get ffmpegPath() {
    return binaries.path;
  },
  get ffprobePath() {
    return binaries.path;
  },
}));

let dir: string;
let notExecutable: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-binaries-'));
  notExecutable = join(dir, 'ffmpeg');
  await writeFile(notExecutable, '#!/bin/sh\nexit 0\n');
  await chmod(notExecutable, 0o644);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function mediaModulesWith(path: string) {
  binaries.path = path;
  vi.resetModules();
  return import('#shared/media/job.ts');
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );

describe('a binary that cannot be started: 503 engine_unavailable naming ffmpeg, the cause kept for the log', () => {
  it.each([
    ['missing', () => join(dir, 'missing', 'ffmpeg'), /ENOENT/],
    ['not executable', () => notExecutable, /EACCES/],
  ])('%s', async (_what, pathOf, errno) => {
    const { inspectMedia, runMediaJob } = await mediaModulesWith(pathOf());
    // The file is never read: the tool does not start.
    const input = { path: notExecutable, format: 'wav' as const, baseName: 'x' };
    const probing = (await rejection(inspectMedia(input, {}))) as Error;
    expect(probing).toMatchObject({ name: 'ApiError', code: 'engine_unavailable' });
    expect(probing.message).toMatch(/^ffmpeg is not available on this server/);
    expect(probing.message).not.toContain(dir);
    expect(probing.cause).toMatchObject({ name: 'MediaToolError', tool: 'ffprobe', outcome: 'not-started' });
    expect((probing.cause as Error).message).toMatch(errno);

    const job = { input: notExecutable, demuxer: 'wav', output: join(dir, 'out.mp3'), outputOptions: [] };
    // runMediaJob writes to the job's output and never asks the workspace for a file.
    const context = { workspace: new Workspace(), tier: 'free' as const, maxMediaSeconds: 120 };
    const converting = (await rejection(runMediaJob(job, context))) as Error;
    expect(converting).toMatchObject({ name: 'ApiError', code: 'engine_unavailable' });
    expect(converting.cause).toMatchObject({
      name: 'MediaToolError',
      tool: 'ffmpeg',
      outcome: 'not-started',
    });
    expect((converting.cause as Error).message).toMatch(errno);
  });
});
