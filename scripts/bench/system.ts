import { readFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { ffmpegPath } from '#shared/media/binaries.ts';
import { describeTools, type Tools } from './context.ts';
import { median } from './measure.ts';
import { toolVersion } from './processes.ts';

/** The machine, the date and every version the numbers depend on. */

const rootDir = fileURLToPath(new URL('../../', import.meta.url));

/** A dependency's installed version, read from its package.json (some packages do not export it). */
const packageVersion = async (name: string): Promise<string> => {
  const path = join(rootDir, 'node_modules', name, 'package.json');
  return (JSON.parse(await readFile(path, 'utf8')) as { version: string }).version;
};

const osName = async () => {
  const text = await readFile('/etc/os-release', 'utf8').catch(() => '');
  return /^PRETTY_NAME="?([^"\n]+)"?/m.exec(text)?.[1] ?? 'unknown OS';
};

// The 1-minute load average, every 5 s, to say how busy the machine was while it was measured.
const loads: number[] = [loadavg()[0]!];
setInterval(() => loads.push(loadavg()[0]!), 5000).unref();

export async function describeMachine(tools: Tools, date: Date): Promise<string> {
  const ffmpeg = await toolVersion(ffmpegPath, ['-version']);
  const alternatives = await describeTools(tools);
  const lines = [
    `- Date: ${date.toISOString()}`,
    `- Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${await osName()}, Linux ${release()}`,
    `- Node ${process.versions.node}; sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}); ` +
      `@hyzyla/pdfium ${await packageVersion('@hyzyla/pdfium')}; pdf-lib ${await packageVersion('pdf-lib')}; ` +
      `ffmpeg ${/version (\S+)/.exec(ffmpeg)?.[1] ?? 'unknown'} (Debian's package)`,
    `- Alternatives: ImageMagick ${alternatives.imagemagick}; pdftoppm (poppler) ${alternatives.pdftoppm}; ` +
      `qpdf ${alternatives.qpdf}; Ghostscript ${alternatives.ghostscript}`,
  ];
  return `${lines.join('\n')}\n`;
}

export function loadNote(startedAt: Date): string {
  const minutes = (Date.now() - startedAt.getTime()) / 60_000;
  return (
    `Run took ${minutes.toFixed(1)} min. Load average (1 min) during the run: median ${median(loads).toFixed(1)}, ` +
    `max ${Math.max(...loads).toFixed(1)} on ${availableParallelism()} cores; the benchmark itself accounts for ` +
    'about 1 to 2 of it, anything above is other work sharing the machine.'
  );
}
