import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * ffprobe's deadline, checked against a stand-in binary that never answers: the real ffprobe may
 * finish a small file before any deadline short enough for a test, so only a binary that sleeps
 * makes the kill certain whatever the machine's load.
 */
let dir: string;
let run: typeof import('#shared/media/run.ts');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fake-ffprobe-'));
  const fake = join(dir, 'ffprobe');
  // exec: the sleeping process is the one the deadline must kill, not a shell above it.
  await writeFile(fake, '#!/bin/sh\nexec sleep 600\n');
  await chmod(fake, 0o755);
  // The binary's path is read once when the module loads, so it is set before the first import.
  process.env.FFPROBE_PATH = fake;
  run = await import('#shared/media/run.ts');
});

afterAll(async () => {
  delete process.env.FFPROBE_PATH;
  await rm(dir, { recursive: true, force: true });
});

/** Children of this process that run the stand-in (it shows as `sleep` once it has exec'd). */
async function sleepingChildren(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const match = /^(\d+) \((.*)\) \S (\d+)/.exec(stat);
    if (match && Number(match[3]) === process.pid && ['sleep', 'ffprobe', 'sh'].includes(match[2] ?? '')) {
      found.push(Number(match[1]));
    }
  }
  return found;
}

describe('runFfprobe deadline', () => {
  it('kills an ffprobe that never answers at its deadline and leaves nothing behind', async () => {
    const error = await run
      .runFfprobe(join(dir, 'input.mov'), 'mov', { timeoutMs: 200 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(run.MediaTimeoutError);
    expect((error as InstanceType<typeof run.MediaTimeoutError>).timeoutMs).toBe(200);
    expect(await sleepingChildren()).toEqual([]);
  });

  it('an already-aborted signal rejects with its reason before anything starts', async () => {
    const controller = new AbortController();
    const reason = new Error('gone');
    controller.abort(reason);
    await expect(
      run.runFfprobe(join(dir, 'input.mov'), 'mov', { timeoutMs: 60_000, signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(await sleepingChildren()).toEqual([]);
  });
});
