import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { config } from '#shared/config.ts';
import { engineUnavailable } from '#shared/engines.ts';
import { ApiError } from '#shared/errors.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { limitedCommand, processLimits, shellExecFailures } from '#shared/process-limits.ts';
import { formatBytes } from '#shared/units.ts';

/**
 * The only module that starts qpdf (the reference implementation of PDF encryption): the static
 * build of the qpdf layer in Lambda (/opt/bin/qpdf), Debian's package elsewhere, or QPDF_PATH.
 *
 * Every run is bounded: its arguments, passwords included, go through its standard input (`@-`),
 * never its command line, where any process of the machine could read them; the process runs
 * under the function's memory and CPU-time limits (as ffmpeg does, process-limits.ts); a deadline
 * or an abort kills it; what it writes is its standard output, counted on the way to the file and
 * cut off past `maxBytes`. The promise settles only after the process has exited.
 */

const layerPath = '/opt/bin/qpdf';
const systemPath = '/usr/bin/qpdf';

function resolveQpdf(fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  for (const path of [layerPath, systemPath]) if (existsSync(path)) return path;
  return layerPath;
}

export const qpdfPath: string = resolveQpdf(config.QPDF_PATH);

/** qpdf's exit codes: 0 done, 2 refused (an error), 3 done with warnings (e.g. a file it repaired). */
export type QpdfExit = 0 | 2 | 3;

/** A run's time when the request sets none (an async job). */
const defaultTimeoutMs = 120_000;
/** Time kept back before the request's deadline, to answer with the failure. */
const deadlineMarginMs = 1000;
/** The part of qpdf's reports that is kept: a report (--show-encryption), an error for the table. */
const maxReportChars = 16 * 1024;

export interface QpdfOptions {
  /** When the request must have answered (epoch ms). */
  deadline?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Where qpdf's output goes: the arguments end with `-`, and standard output is written here. */
  output?: { path: string; maxBytes: number };
}

export interface QpdfResult {
  exit: QpdfExit;
  /** What qpdf printed (its first 16 KiB), when its output went to no file. */
  stdout: string;
  stderr: string;
}

/** qpdf ran past its time. */
export class QpdfTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`qpdf exceeded ${timeoutMs} ms and was killed`);
    this.name = 'QpdfTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

function timeLeft(deadline: number | undefined): number {
  if (deadline === undefined) return defaultTimeoutMs;
  return Math.max(1, deadline - deadlineMarginMs - Date.now());
}

/**
 * Runs qpdf with `args` (one argument per line on its standard input; none may hold a line break)
 * and returns its exit code 0, 2 or 3 with its standard error. Throws 503 engine_unavailable when
 * qpdf cannot be started, 400 invalid_source_file when the output passes `output.maxBytes`, 400
 * invalid_source_file when the run passes its time.
 */
export async function runQpdf(args: readonly string[], options: QpdfOptions = {}): Promise<QpdfResult> {
  if (args.some((arg) => /[\r\n]/.test(arg))) throw new Error('a qpdf argument holds a line break');
  const timeoutMs = timeLeft(options.deadline);
  const all = options.output ? [...args, '-'] : [...args];
  const command = limitedCommand(qpdfPath, ['@-'], processLimits(timeoutMs));
  const child = spawn(command.file, command.args, { stdio: 'pipe' });

  let failure: unknown;
  const stop = (error: unknown) => {
    failure ??= error;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => stop(new QpdfTimeoutError(timeoutMs)), timeoutMs);
  const onAbort = () => stop(options.signal?.reason ?? new Error('aborted'));
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const stderr = keepText(child.stderr);
  const stdout = options.output ? { text: '' } : keepText(child.stdout);
  child.stdin.on('error', () => {
    // qpdf may exit before reading all of its arguments; its exit code tells why.
  });
  child.stdin.end(`${all.join('\n')}\n`);

  const written = options.output ? writeCounted(child.stdout, options.output, stop) : Promise.resolve();
  const exit = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  }).finally(() => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  });
  await written.catch((error: unknown) => stop(error));

  if (failure !== undefined) {
    if (options.output) await rm(options.output.path, { force: true });
    if (failure instanceof QpdfTimeoutError) {
      throw new ApiError(
        'invalid_source_file',
        `The PDF could not be processed within the ${Math.round(failure.timeoutMs / 1000)} s this request had left.`,
        { cause: failure },
      );
    }
    throw failure;
  }
  if (exit !== null && shellExecFailures.has(exit)) {
    throw engineUnavailable('qpdf', new Error(shellExecFailures.get(exit)));
  }
  if (exit !== 0 && exit !== 2 && exit !== 3) {
    throw new Error(
      `qpdf ended with ${exit === null ? 'a signal' : `exit code ${exit}`}: ${stderr.text.trim()}`,
    );
  }
  return { exit, stdout: stdout.text, stderr: stderr.text };
}

/** The first characters of a stream, read to its end. */
function keepText(stream: NodeJS.ReadableStream): { text: string } {
  const kept = { text: '' };
  stream.setEncoding('utf8');
  stream.on('data', (text: string) => {
    if (kept.text.length < maxReportChars) kept.text += text.slice(0, maxReportChars - kept.text.length);
  });
  return kept;
}

/** Streams qpdf's output to the file, counting; past the limit the run is stopped. */
function writeCounted(
  stdout: NodeJS.ReadableStream,
  output: NonNullable<QpdfOptions['output']>,
  stop: (error: unknown) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const file = createWriteStream(output.path);
    let bytes = 0;
    stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > output.maxBytes) {
        stop(
          new ApiError(
            'invalid_source_file',
            `The PDF written would be larger than ${formatBytes(output.maxBytes)}, the limit for this source.`,
          ),
        );
      }
    });
    stdout.pipe(file);
    file.once('finish', resolve);
    file.once('error', reject);
  });
}

/**
 * Runs qpdf and answers its refusal (exit 2) through the error table: a wrong password is 400
 * invalid_password, a damaged file 400 invalid_source_file, an unsupported security handler 400
 * encrypted_pdf; an error no entry explains stays internal.
 */
export async function runQpdfOrFail(args: readonly string[], options: QpdfOptions = {}): Promise<QpdfResult> {
  const result = await runQpdf(args, options);
  if (result.exit === 2) {
    if (options.output) await rm(options.output.path, { force: true });
    mapNativeError('qpdf', new Error(result.stderr.trim() || 'qpdf refused the file'));
  }
  return result;
}
