import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { UNAVAILABLE } from '#shared/engines.ts';
import type { StatusView } from '#shared/routes/system.ts';

export type EngineVersions = StatusView['engines'];

/** How long `<binary> --version` may take before the engine counts as unavailable. */
const VERSION_TIMEOUT_MS = 10_000;
/** LibreOffice starts its whole office to print its version: slower than the others. */
const OFFICE_VERSION_TIMEOUT_MS = 20_000;

const require = createRequire(import.meta.url);

async function sharpVersions(): Promise<{ sharp: string | null; libvips: string | null }> {
  try {
    const { default: sharp } = await import('sharp');
    return { sharp: sharp.versions.sharp ?? null, libvips: sharp.versions.vips ?? null };
  } catch {
    return { sharp: null, libvips: null };
  }
}

/** What a binary prints for `args`, or null when it cannot run, fails or does not answer in time. */
function commandOutput(binary: string, args: string[], timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    // HOME in the temporary folder: LibreOffice writes a profile there even to print its version.
    const env = { ...process.env, HOME: tmpdir() };
    execFile(binary, args, { timeout: timeoutMs, env }, (error, stdout) => resolve(error ? null : stdout));
  });
}

/** The version word of `ffmpeg -version`'s first line, e.g. `7.1` or `n7.1-3-gabcdef`. */
export function parseFfmpegVersion(output: string): string | null {
  return /^ffmpeg version (\S+)/m.exec(output)?.[1] ?? null;
}

export async function ffmpegVersion(binary?: string, timeoutMs = VERSION_TIMEOUT_MS): Promise<string | null> {
  const path = binary ?? (await import('#shared/media/binaries.ts')).ffmpegPath;
  const output = await commandOutput(path, ['-version'], timeoutMs);
  return output === null ? null : parseFfmpegVersion(output);
}

/** `LibreOffice 7.4.7.2 40(Build:2)` → `7.4.7.2`. */
export function parseOfficeVersion(output: string): string | null {
  return /^LibreOffice (\d[\w.]*)/m.exec(output)?.[1] ?? null;
}

export async function libreofficeVersion(
  binary?: string,
  timeoutMs = OFFICE_VERSION_TIMEOUT_MS,
): Promise<string | null> {
  const path = binary ?? (await import('#shared/documents/office-convert.ts')).officeBinary;
  const output = await commandOutput(path, ['--version'], timeoutMs);
  return output === null ? null : parseOfficeVersion(output);
}

/** `Chromium 150.0.7871.100 built on Debian` or `HeadlessChrome/131.0.6778.204` → the version. */
export function parseChromiumVersion(output: string): string | null {
  return /(?:Chromium|Chrome)\/? ?(\d+\.\d+\.\d+\.\d+)/.exec(output)?.[1] ?? null;
}

/**
 * The browser the document routes run: a Chromium named by CHROMIUM_EXECUTABLE (or the local
 * unpacked build) answers `--version`; the packed one is unpacked only on first use, so its
 * package's version is shown while its files are there.
 */
export async function chromiumVersion(timeoutMs = VERSION_TIMEOUT_MS): Promise<string | null> {
  const { documentsConfig } = await import('#shared/documents/config.ts');
  const executable = documentsConfig.CHROMIUM_EXECUTABLE;
  if (executable !== undefined) {
    const output = await commandOutput(executable, ['--version'], timeoutMs);
    return output === null ? null : parseChromiumVersion(output);
  }
  try {
    const manifestPath = require.resolve('@sparticuz/chromium/package.json');
    const packDir = documentsConfig.CHROMIUM_PACK_DIR ?? join(dirname(manifestPath), 'bin');
    if (!existsSync(join(packDir, 'chromium.br'))) return null;
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { version?: string };
    return manifest.version ?? null;
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

/** The tesseract /ocr runs (its layer's, or Debian's off Lambda), by `tesseract --version`. */
async function tesseractVersion(): Promise<string | null> {
  const { tesseractVersion: read } = await import('#shared/ocr/tesseract.ts');
  return read(VERSION_TIMEOUT_MS);
}

async function readEngineVersions(): Promise<EngineVersions> {
  const [images, ffmpeg, pdfium, chromium, libreoffice, tesseract] = await Promise.all([
    sharpVersions(),
    ffmpegVersion(),
    pdfiumVersion(),
    chromiumVersion(),
    libreofficeVersion(),
    tesseractVersion(),
  ]);
  const shown = (version: string | null) => version ?? UNAVAILABLE;
  return {
    sharp: shown(images.sharp),
    libvips: shown(images.libvips),
    ffmpeg: shown(ffmpeg),
    pdfium: shown(pdfium),
    chromium: shown(chromium),
    libreoffice: shown(libreoffice),
    tesseract: shown(tesseract),
    node: process.versions.node,
  };
}

// Facts about the container that never change while it lives: read once, on the first call.
let reading: Promise<EngineVersions> | undefined;

export function engineVersions(): Promise<EngineVersions> {
  reading ??= readEngineVersions();
  return reading;
}
