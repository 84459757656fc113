import { spawn } from 'node:child_process';
import { mkdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { OfficeDocument } from '#shared/documents/office-format.ts';
import type { OfficeFormat } from '#shared/documents/office-limits.ts';
import { deadProxy, writeProfile } from '#shared/documents/office-profile.ts';
import { engineUnavailable } from '#shared/engines.ts';
import { ApiError } from '#shared/errors.ts';
import { limitedCommand, processLimits, shellExecFailures } from '#shared/process-limits.ts';

/**
 * Converts an office document to PDF with LibreOffice (`soffice --headless --convert-to pdf`).
 *
 * Each run gets a fresh profile in the request's workspace (office-profile.ts: macros off, links
 * never updated, a dead proxy), an environment of its own (HOME and TMPDIR in the workspace, a
 * dead proxy for every scheme, none of the function's AWS_* variables), the input filter named
 * by the sniffed format (so a file is only ever read by the filter of the format it proved to
 * be), and the kernel's memory and CPU limits that ffmpeg runs under. It runs in a process group
 * of its own, and at the deadline or on abort the whole group is killed: soffice is a launcher
 * that starts soffice.bin, and both must go.
 */

/** The binary: Debian's launcher (and the container image's), or OFFICE_BINARY. */
export const officeBinary = process.env.OFFICE_BINARY ?? 'soffice';

/**
 * LibreOffice's import filter for each format. Word 6.0 and 95 files are .doc too, but the Word 97
 * filter reads their streams as Word 97's and fails: they get the filter LibreOffice's own
 * detection gives them (office-format.ts tells them apart as it does, by the table stream).
 */
const inputFilters: Readonly<Record<OfficeFormat, string>> = {
  docx: 'MS Word 2007 XML',
  doc: 'MS Word 97',
  rtf: 'Rich Text Format',
  odt: 'writer8',
  xlsx: 'Calc MS Excel 2007 XML',
  xls: 'MS Excel 97',
  ods: 'calc8',
  pptx: 'Impress MS PowerPoint 2007 XML',
  ppt: 'MS PowerPoint 97',
  odp: 'impress8',
};
const word95Filter = 'MS Word 95';

export interface OfficeConvertOptions {
  /** The request's workspace folder; the profile, the input copy and the output go inside. */
  dir: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The LibreOffice launcher; default officeBinary. */
  binary?: string;
}

/** The conversion did not finish in time; the handler answers 504. */
export class OfficeTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the office conversion exceeded ${timeoutMs} ms and was killed`);
    this.name = 'OfficeTimeoutError';
  }
}

const deadProxyUrl = `http://${deadProxy.host}:${deadProxy.port}`;

/** Only what LibreOffice needs: never the function's credentials or the runtime API's address. */
function officeEnvironment(dir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    TMPDIR: dir,
    LANG: 'C.UTF-8',
    SAL_USE_VCLPLUGIN: 'svp',
    http_proxy: deadProxyUrl,
    https_proxy: deadProxyUrl,
    ftp_proxy: deadProxyUrl,
    all_proxy: deadProxyUrl,
    HTTP_PROXY: deadProxyUrl,
    HTTPS_PROXY: deadProxyUrl,
    ALL_PROXY: deadProxyUrl,
    no_proxy: '',
    NO_PROXY: '',
  };
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  log: string;
}

function runOffice(args: string[], options: OfficeConvertOptions): Promise<RunResult> {
  const command = limitedCommand(options.binary ?? officeBinary, args, processLimits(options.timeoutMs));
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, {
      cwd: options.dir,
      env: officeEnvironment(options.dir),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let log = '';
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let stopped: Error | undefined;
    const killGroup = (why: Error) => {
      stopped ??= why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => killGroup(new OfficeTimeoutError(options.timeoutMs)), options.timeoutMs);
    const onAbort = () => killGroup(options.signal?.reason ?? new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // The launcher may have exited while soffice.bin still runs: nothing of the group may outlive the run.
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }
      if (stopped) reject(stopped);
      else resolve({ code, signal, log });
    });
  });
}

const fileExists = (path: string) =>
  stat(path).then(
    (info) => info.isFile() && info.size > 0,
    () => false,
  );

/**
 * Converts `input` (as office-format.ts named it) to a PDF inside `options.dir` and returns its path.
 * A document LibreOffice cannot load or export answers 400 `invalid_source_file`; the deadline
 * throws OfficeTimeoutError.
 */
export async function convertOfficeToPdf(
  input: string,
  { format, word95 }: OfficeDocument,
  options: OfficeConvertOptions,
): Promise<string> {
  const profile = await writeProfile(join(options.dir, 'profile'));
  const outDir = join(options.dir, 'out');
  await mkdir(outDir, { recursive: true });
  // The input under a name of ours, with the extension of the format it proved to be.
  const document = join(options.dir, `document.${format}`);
  await rename(input, document);
  const result = await runOffice(
    [
      `-env:UserInstallation=${profile}`,
      '--headless',
      '--invisible',
      '--nologo',
      '--nodefault',
      '--nolockcheck',
      '--norestore',
      `--infilter=${word95 ? word95Filter : inputFilters[format]}`,
      '--convert-to',
      'pdf',
      '--outdir',
      outDir,
      document,
    ],
    options,
  );
  if (result.code !== null && shellExecFailures.has(result.code)) {
    throw engineUnavailable(
      'libreoffice',
      new Error(`LibreOffice could not be started (${shellExecFailures.get(result.code)}): ${result.log}`),
    );
  }
  const output = join(outDir, 'document.pdf');
  if (result.code === 0 && (await fileExists(output))) return output;
  throw new ApiError(
    'invalid_source_file',
    `The ${format} document could not be converted: LibreOffice could not read it.`,
    { cause: new Error(`soffice exited ${result.code ?? result.signal}: ${result.log}`) },
  );
}
