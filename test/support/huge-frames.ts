import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { limitedCommand } from '#shared/process-limits.ts';
import { referenceFfmpeg } from './reference-tools.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/**
 * A JPEG of one colour at `side` × `side` written by sharp in a child process capped at 1 GiB of
 * data: without Huffman optimisation libjpeg streams its rows, so a 16000² picture costs ~80 MB and
 * a few seconds, and compresses to a few megabytes.
 */
async function oneColourJpeg(path: string, side: number): Promise<void> {
  const script = [
    "import sharp from 'sharp';",
    'sharp.concurrency(1);',
    'sharp.cache(false);',
    `await sharp({ create: { width: ${side}, height: ${side}, channels: 3, background: '#3366cc' } })`,
    '  .jpeg({ quality: 30, optimiseCoding: false })',
    '  .toFile(process.argv[1]);',
  ].join('\n');
  const command = limitedCommand(process.execPath, ['--input-type=module', '-e', script, path], {
    dataBytes: 1024 * MiB,
    cpuSeconds: 120,
  });
  await run(command.file, command.args);
}

/**
 * An AVI of two MJPEG frames at `side` × `side`: the JPEG's bytes copied as they are (nothing is
 * decoded), in ffmpeg capped at 256 MiB. What an attacker sends to make a decoder allocate
 * gigabytes for a file of megabytes.
 */
export async function hugeFrameAvi(dir: string, side = 16_000): Promise<string> {
  const jpeg = join(dir, `one-colour-${side}.jpg`);
  const avi = join(dir, `frames-${side}.avi`);
  await oneColourJpeg(jpeg, side);
  const args = ['-v', 'error', '-nostdin', '-stream_loop', '1', '-f', 'jpeg_pipe', '-i', jpeg];
  const command = limitedCommand(referenceFfmpeg, [...args, '-c:v', 'copy', '-f', 'avi', '-y', avi], {
    dataBytes: 256 * MiB,
    cpuSeconds: 60,
  });
  await run(command.file, command.args);
  return avi;
}
