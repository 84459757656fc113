import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { StatusView } from '#shared/routes/system.ts';

export type EngineVersions = StatusView['engines'];

/** How long `ffmpeg -version` may take before ffmpeg counts as unavailable. */
const FFMPEG_VERSION_TIMEOUT_MS = 3000;

const require = createRequire(import.meta.url);

async function sharpVersions(): Promise<{ sharp: string | null; libvips: string | null }> {
  try {
    const { default: sharp } = await import('sharp');
    return { sharp: sharp.versions.sharp ?? null, libvips: sharp.versions.vips ?? null };
  } catch {
    return { sharp: null, libvips: null };
  }
}

/** The version word of `ffmpeg -version`'s first line, e.g. `7.1` or `n7.1-3-gabcdef`. */
export function parseFfmpegVersion(output: string): string | null {
  return /^ffmpeg version (\S+)/m.exec(output)?.[1] ?? null;
}

export async function ffmpegVersion(
  binary?: string,
  timeoutMs = FFMPEG_VERSION_TIMEOUT_MS,
): Promise<string | null> {
  try {
    const path = binary ?? (await import('#shared/media/binaries.ts')).ffmpegPath;
    const output = await new Promise<string>((resolve, reject) => {
      execFile(path, ['-version'], { timeout: timeoutMs }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
    });
    return parseFfmpegVersion(output);
  } catch {
    return null;
  }
}

/** The version of the @hyzyla/pdfium package, the PDFium build the PDF routes run. */
async function pdfiumVersion(): Promise<string | null> {
  try {
    // Loading the library proves it is there; the import also tells the bundler to ship it.
    await import('@hyzyla/pdfium');
    // The package exports no package.json; its entry point sits in dist/, one level below it.
    const entry = require.resolve('@hyzyla/pdfium');
    const manifest = JSON.parse(await readFile(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
      name?: string;
      version?: string;
    };
    return manifest.name === '@hyzyla/pdfium' ? (manifest.version ?? null) : null;
  } catch {
    return null;
  }
}

async function readEngineVersions(): Promise<EngineVersions> {
  const [images, ffmpeg, pdfium] = await Promise.all([sharpVersions(), ffmpegVersion(), pdfiumVersion()]);
  return { ...images, ffmpeg, pdfium, node: process.versions.node };
}

// Facts about the container that never change while it lives: read once, on the first call.
let reading: Promise<EngineVersions> | undefined;

export function engineVersions(): Promise<EngineVersions> {
  reading ??= readEngineVersions();
  return reading;
}
