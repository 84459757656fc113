import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { engineUnavailable } from '#shared/engines.ts';
import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { ocrConfig, type TesseractCommand } from '#shared/ocr/config.ts';
import { meanConfidence, pageText, type RecognisedWord, wordsOf } from '#shared/ocr/tsv.ts';

/** What one run of the binary gave. */
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Bytes of stderr kept for the log: Tesseract's warnings are short. */
const maxStderr = 4096;

/**
 * Runs tesseract with `args`, ended (SIGKILL) at `limitMs` or when `signal` aborts. One thread
 * (OMP_THREAD_LIMIT=1): OpenMP's threads cost three times the CPU for the same page on a busy
 * machine (docs/ocr.md), and a function with one or two vCPUs gains nothing from them.
 */
export function runTesseract(
  args: readonly string[],
  limitMs: number,
  signal?: AbortSignal,
  command: TesseractCommand = ocrConfig.command,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: tmpdir(), OMP_THREAD_LIMIT: '1' };
    if (command.tessdata) env.TESSDATA_PREFIX = command.tessdata;
    const child = spawn(command.file, [...command.prefix, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < maxStderr) stderr += chunk;
    });
    const stop = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, limitMs);
    signal?.addEventListener('abort', stop, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    };
    child.on('error', (error) => {
      done();
      reject(error);
    });
    child.on('close', (code) => {
      done();
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

const isMissingBinary = (error: unknown) =>
  error instanceof Error && ['ENOENT', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '');

/** `tesseract 5.3.0` (first line of `--version`) → `5.3.0`. */
export function parseTesseractVersion(output: string): string | null {
  return /^tesseract v?(\d[\w.-]*)/im.exec(output)?.[1] ?? null;
}

/** The version of the tesseract the route runs, or null when it is missing or broken. */
export async function tesseractVersion(limitMs = 10_000): Promise<string | null> {
  try {
    const run = await runTesseract(['--version'], limitMs);
    return run.code === 0 ? parseTesseractVersion(run.stdout + run.stderr) : null;
  } catch {
    return null;
  }
}

/** The languages of `tesseract --list-langs` (the first line names the folder). */
export function parseLanguageList(output: string): string[] {
  return output
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

// The data installed does not change while the container lives: listed once.
let listing: Promise<string[]> | undefined;

/** The languages whose data is installed here; the engine missing → 503 engine_unavailable. */
export function installedLanguages(): Promise<string[]> {
  listing ??= runTesseract(['--list-langs'], 10_000).then(
    (run) => {
      if (run.code !== 0) throw engineUnavailable('tesseract', new Error(run.stderr));
      return parseLanguageList(run.stdout);
    },
    (error: unknown) => {
      throw engineUnavailable('tesseract', error);
    },
  );
  listing.catch(() => {
    listing = undefined;
  });
  return listing;
}

/** Refuses, before any work, languages whose data this server lacks: 503 naming them. */
export async function assertLanguagesInstalled(languages: readonly string[]): Promise<void> {
  const installed = new Set(await installedLanguages());
  const missing = languages.filter((language) => !installed.has(language));
  if (missing.length === 0) return;
  throw new ApiError(
    'engine_unavailable',
    `Tesseract's data for ${missing.join(', ')} is not installed on this server, so the text cannot be read now; GET /status lists the engines. The operator installs it (the tesseract layer, or Debian's tesseract-ocr-<language> packages).`,
  );
}

export interface RecogniseOptions {
  languages: readonly string[];
  /** The image's resolution, when known: sizes the PDF page, and guides Tesseract's layout. */
  dpi: number | undefined;
  /** Also write `<outBase>.pdf`: the image with an invisible text layer. */
  pdf: boolean;
  /** The page's number, for messages. */
  page: number;
  /** Time the run may take; how to name that limit in a message. */
  limitMs: number;
  describeLimit: string;
  signal?: AbortSignal | undefined;
}

export interface PageRecognition {
  text: string;
  confidence: number;
  words: RecognisedWord[];
  /** `<outBase>.pdf`, when asked for. */
  pdfPath: string | undefined;
}

/**
 * Reads one page image with Tesseract's LSTM engine: automatic page segmentation with orientation
 * and script detection (`--psm 1`: a page turned by a quarter or upside down is read upright;
 * slightly skewed lines are followed by the layout analysis), writing the text, the words with
 * their boxes and confidences (TSV) and, when asked, Tesseract's own searchable PDF of the page.
 */
export async function recognisePage(
  imagePath: string,
  outBase: string,
  options: RecogniseOptions,
): Promise<PageRecognition> {
  const args = [
    imagePath,
    outBase,
    '-l',
    options.languages.join('+'),
    '--psm',
    '1',
    '--oem',
    '1',
    ...(options.dpi === undefined ? [] : ['--dpi', String(Math.max(1, Math.round(options.dpi)))]),
    '-c',
    'tessedit_create_txt=1',
    '-c',
    'tessedit_create_tsv=1',
    '-c',
    `tessedit_create_pdf=${options.pdf ? 1 : 0}`,
  ];
  let run: Run;
  try {
    run = await runTesseract(args, options.limitMs, options.signal);
  } catch (error) {
    if (isMissingBinary(error)) throw engineUnavailable('tesseract', error);
    throw error;
  }
  if (run.timedOut) {
    log('error', 'tesseract passed its time limit on a page; it was stopped', {
      page: options.page,
      limitMs: options.limitMs,
    });
    throw new ApiError(
      'invalid_source_file',
      `The text of page ${options.page} could not be read within ${options.describeLimit}. Leave it out with \`pages\`, or send a smaller scan.`,
    );
  }
  const missingData = /Failed loading language '([^']+)'/.exec(run.stderr);
  if (missingData) {
    throw new ApiError(
      'engine_unavailable',
      `Tesseract's data for ${missingData[1]} could not be loaded on this server, so the text cannot be read now; GET /status lists the engines.`,
    );
  }
  if (run.code !== 0) {
    log('error', 'tesseract failed on a page', { page: options.page, code: run.code, stderr: run.stderr });
    throw new ApiError(
      'invalid_source_file',
      `The text of page ${options.page} could not be read: the OCR engine failed on its image.`,
    );
  }
  const [text, tsv] = await Promise.all([
    readFile(`${outBase}.txt`, 'utf8'),
    readFile(`${outBase}.tsv`, 'utf8'),
  ]);
  const words = wordsOf(tsv);
  return {
    text: pageText(text),
    confidence: meanConfidence(words),
    words,
    pdfPath: options.pdf ? `${outBase}.pdf` : undefined,
  };
}
