import { execFile } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { processLimits } from '#shared/process-limits.ts';
import { Workspace } from '#shared/workspace.ts';
import { referenceFfmpeg } from '../../support/reference-tools.ts';
import { childMediaProcesses, MediaFixtures } from './fixtures.ts';

/**
 * The limits seen from inside the processes: the media modules are loaded with binaries that are
 * scripts writing their own /proc/self/limits (what the kernel enforces on them) and then running
 * the real ffmpeg or ffprobe in the same process (exec), so what they record is what the tool got.
 */
const real = await vi.importActual<typeof import('#shared/media/binaries.ts')>('#shared/media/binaries.ts');
const binaries = vi.hoisted(() => ({ ffmpeg: '', ffprobe: '' }));
vi.mock('#shared/media/binaries.ts', () => ({
  get ffmpegPath() {
    return binaries.ffmpeg;
  },
  get ffprobePath() {
    return binaries.ffprobe;
  },
}));

const run = promisify(execFile);
const MiB = 1024 * 1024;
const fixtures = new MediaFixtures();
let workspace: Workspace;
let dir: string;

async function recorder(name: 'ffmpeg' | 'ffprobe', target: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    `#!/bin/sh\ncat /proc/self/limits > '${join(dir, `${name}.limits`)}'\nexec '${target}' "$@"\n`,
  );
  await chmod(path, 0o755);
  return path;
}

/** `Max data size` → [soft, hard] as the kernel lists them. */
async function recorded(name: 'ffmpeg' | 'ffprobe') {
  const text = await readFile(join(dir, `${name}.limits`), 'utf8');
  const row = (label: string) => {
    const match = new RegExp(`^${label}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(text);
    return match ? [match[1], match[2]] : undefined;
  };
  return { data: row('Max data size'), cpu: row('Max cpu time'), core: row('Max core file size') };
}

beforeAll(async () => {
  await fixtures.open();
  workspace = new Workspace();
  dir = await workspace.dir();
  await fixtures.path('mp4');
  binaries.ffmpeg = await recorder('ffmpeg', real.ffmpegPath);
  binaries.ffprobe = await recorder('ffprobe', real.ffprobePath);
});

afterAll(async () => {
  await workspace.dispose();
  await fixtures.close();
});

describe('ffmpeg and ffprobe run under the kernel’s limits, sized from the function', () => {
  it('a conversion: data limited to the function’s memory less Node’s share, CPU time to the deadline on every core, no core files', async () => {
    const { convertVideo } = await import('#shared/media/convert-video.ts');
    await convertVideo(
      { path: await fixtures.path('mp4'), format: 'mp4', baseName: 'clip' },
      { outputFormat: 'mkv' },
      { workspace, tier: 'pro', maxMediaSeconds: 1800, timeoutMs: 40_000 },
    );
    // No memory size is set here: the media file functions' 3008 MiB is assumed.
    const dataBytes = String((3008 - 256) * MiB);
    const conversion = await recorded('ffmpeg');
    expect(conversion.data).toEqual([dataBytes, dataBytes]);
    const cpu = Math.ceil(40 * availableParallelism());
    expect(conversion.cpu).toEqual([String(cpu), String(cpu + 5)]);
    expect(conversion.core).toEqual(['0', '0']);

    const probe = await recorded('ffprobe');
    expect(probe.data).toEqual([dataBytes, dataBytes]);
    expect(Number(probe.cpu?.[1])).toBe(Number(probe.cpu?.[0]) + 5);
    expect(probe.core).toEqual(['0', '0']);
  });

  it('follows the memory size Lambda states for the function', () => {
    expect(processLimits(10_000, 1024 * MiB, 2)).toEqual({ dataBytes: 768 * MiB, cpuSeconds: 20 });
    // A tiny function still leaves the tool enough to read a header.
    expect(processLimits(100, 128 * MiB, 1)).toEqual({ dataBytes: 256 * MiB, cpuSeconds: 1 });
  });
});

describe('a run stopped by a limit answers the caller with the limit named', () => {
  it('more memory than the limit: 400 invalid_source_file naming it', async () => {
    const { runMediaJob } = await import('#shared/media/job.ts');
    const { runFfmpeg } = await import('#shared/media/run.ts');
    const { publicMediaError } = await import('#shared/media/failures.ts');
    // 4000 × 4000 frames: decoding one takes 24 MB, encoding it with x264 far more than 48 MiB.
    const source = join(dir, 'large-frames.avi');
    await run(referenceFfmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x3366cc:s=4000x4000:r=5:d=0.4'],
      ...['-c:v', 'mjpeg', '-q:v', '31', '-f', 'avi', '-y', source],
    ]);
    const job = {
      input: source,
      demuxer: 'avi',
      output: join(dir, 'large.mp4'),
      outputOptions: ['-c:v', 'libx264', '-preset', 'ultrafast', '-f', 'mp4'],
    };
    const limits = { dataBytes: 48 * MiB, cpuSeconds: 120 };
    const failure = await runFfmpeg(job, { timeoutMs: 60_000, limits }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'MediaToolError', outcome: 'over-memory-limit' });
    const answer = (() => {
      try {
        publicMediaError(failure, 'conversion');
      } catch (error) {
        return error;
      }
    })();
    expect(answer).toBeInstanceOf(ApiError);
    expect(answer).toMatchObject({ code: 'invalid_source_file' });
    expect((answer as Error).message).toMatch(/more memory than the 48 MiB one media process is given/);
    // The same job within the function's own limits succeeds.
    await runMediaJob(job, { workspace, tier: 'pro', maxMediaSeconds: 1800, timeoutMs: 60_000 });
    expect(await childMediaProcesses()).toEqual([]);
  });

  it('more CPU time than the limit: the conversion answers 413 media_too_long naming it', async () => {
    const { runFfmpeg } = await import('#shared/media/run.ts');
    const { publicMediaError } = await import('#shared/media/failures.ts');
    // The source looped for ever: only a limit ends this run, and the deadline is far away.
    const job = {
      input: await fixtures.path('mp4'),
      demuxer: 'mov',
      inputOptions: ['-stream_loop', '-1'],
      output: join(dir, 'endless.mkv'),
      outputOptions: ['-c:v', 'libx264', '-preset', 'medium', '-f', 'matroska'],
    };
    const limits = { dataBytes: 1024 * MiB, cpuSeconds: 1 };
    const failure = await runFfmpeg(job, { timeoutMs: 120_000, limits }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'MediaToolError', outcome: 'over-cpu-limit' });
    const answer = (() => {
      try {
        publicMediaError(failure, 'conversion');
      } catch (error) {
        return error;
      }
    })();
    expect(answer).toMatchObject({ code: 'media_too_long' });
    expect((answer as Error).message).toMatch(/used up its 1 s of processing \(CPU\) time/);
    expect(await childMediaProcesses()).toEqual([]);
  }, 130_000);
});
