import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import { limitedCommand, type ProcessLimits } from '#shared/process-limits.ts';

/**
 * What fluent-ffmpeg needs to start ffmpeg confined, through its public API only.
 *
 * fluent-ffmpeg starts the one binary named with `setFfmpegPath`, which it keeps for every command
 * of the process, and passes nothing but its own arguments. So the kernel's limits are applied by a
 * small script that stands in for ffmpeg: it runs the limiting shell of process-limits.ts with one
 * run's limits and the real binary, and passes fluent-ffmpeg's arguments on. The shells `exec`, so
 * the process fluent-ffmpeg spawned, watches and kills is ffmpeg itself.
 */

/**
 * fluent-ffmpeg looks for named presets next to its own source, through `__dirname`, which an ES
 * module bundle does not have. No preset is ever used here, so every command names a folder that is
 * never read.
 */
export const commandOptions = { presets: 'unused-presets' } as const;

/** One word for a POSIX shell, whatever it holds. */
const shellWord = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** The stand-in's text: `exec /bin/sh -c <limits script> sh <limits> <binary> "$@"`. */
export function launcherScript(binary: string, limits: ProcessLimits): string {
  const command = limitedCommand(binary, [], limits);
  return `#!/bin/sh\nexec ${[command.file, ...command.args].map(shellWord).join(' ')} "$@"\n`;
}

/** A private folder for the stand-ins of this container (mode 0700, a random name). */
let folder: Promise<string> | undefined;
/** The stand-ins written so far, by their text: each is written once and never changed. */
const written = new Map<string, Promise<string>>();
let writes = 0;

const isRunnable = (path: string) =>
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );

async function writeLauncher(text: string): Promise<string> {
  folder ??= mkdtemp(join(tmpdir(), 'ffmpeg-launchers-'));
  let dir = await folder.catch(() => undefined);
  // A removed folder is replaced by a new private one, never made again under its old name.
  if (!dir || !(await isRunnable(dir))) {
    folder = mkdtemp(join(tmpdir(), 'ffmpeg-launchers-'));
    dir = await folder;
  }
  const path = join(dir, `ffmpeg-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`);
  writes += 1;
  const part = `${path}.${writes}.part`;
  await writeFile(part, text, { mode: 0o700 });
  await rename(part, path);
  return path;
}

/**
 * The path of a stand-in that runs `binary` under `limits`. A shell reads its script after it has
 * been spawned, so a script is never rewritten: each set of limits has its own, named by its text,
 * and it appears under its name only once complete. One that has gone (a cleaned temporary folder)
 * is written again: fluent-ffmpeg cannot report a spawn that fails (it throws outside any callback,
 * which would end the whole process), so the script must exist when it spawns.
 */
export async function limitedLauncher(binary: string, limits: ProcessLimits): Promise<string> {
  const text = launcherScript(binary, limits);
  const known = await written.get(text)?.catch(() => undefined);
  if (known && (await isRunnable(known))) return known;
  const path = writeLauncher(text);
  written.set(text, path);
  // A failed write is tried again by the next run rather than remembered.
  path.catch(() => {
    if (written.get(text) === path) written.delete(text);
  });
  return path;
}

/**
 * fluent-ffmpeg keeps one ffmpeg path for the whole process and reads it a few ticks after `run()`,
 * when it spawns. A run therefore holds the path from setting it until its process has been spawned
 * (or its command has failed before that), so that a run started at the same time cannot swap the
 * limits under it. The wait is a few event-loop turns.
 */
let pathFree: Promise<void> = Promise.resolve();

/** Waits for the path, sets it to `launcher`, and returns the function that frees it (once). */
export async function holdFfmpegPath(launcher: string): Promise<() => void> {
  const previous = pathFree;
  let free!: () => void;
  pathFree = new Promise<void>((resolve) => {
    free = resolve;
  });
  await previous;
  ffmpeg(commandOptions).setFfmpegPath(launcher);
  let freed = false;
  return () => {
    if (freed) return;
    freed = true;
    free();
  };
}

/**
 * Before its first command in a process, fluent-ffmpeg runs `ffmpeg -formats` and `ffmpeg -encoders`
 * to check the formats and codecs a command names; it keeps the answers for the process's life. They
 * are run here once, when the module loads, under `limits`: they read no input and are not part of
 * any request. A failure is not kept: fluent-ffmpeg asks again on the first run, which then reports
 * it.
 */
export async function loadCapabilities(binary: string, limits: ProcessLimits): Promise<void> {
  try {
    const free = await holdFfmpegPath(await limitedLauncher(binary, limits));
    try {
      await Promise.all([
        new Promise<void>((resolve) => ffmpeg(commandOptions).availableFormats(() => resolve())),
        new Promise<void>((resolve) => ffmpeg(commandOptions).availableEncoders(() => resolve())),
      ]);
    } finally {
      free();
    }
  } catch {
    // Nothing to keep: the first run meets the same failure and reports it.
  }
}
