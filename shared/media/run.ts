import { type ExecFileException, execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import ffmpeg, { type FfmpegCommand } from 'fluent-ffmpeg';
import { ffmpegPath, ffprobePath } from '#shared/media/binaries.ts';
import {
  commandOptions,
  holdFfmpegPath,
  limitedLauncher,
  loadCapabilities,
} from '#shared/media/ffmpeg-launcher.ts';
import {
  describeBytes,
  limitedCommand,
  type ProcessLimits,
  processLimits,
  shellExecFailures,
} from '#shared/process-limits.ts';

/**
 * The only module that starts ffmpeg or ffprobe. Everything else describes a job in plain data
 * (input, demuxer, options, output), so the engine behind it can be swapped without touching the
 * converters or the handlers. ffmpeg is started through fluent-ffmpeg's public API; ffprobe, which
 * must be read with a forced demuxer and a bounded report, is started beside it with execFile.
 *
 * Every run is confined: the input is read through the `file` protocol only and with the one
 * demuxer the caller names, no decoder accepts a frame over 8192 × 8192 pixels, the process runs
 * under memory and CPU-time limits (process-limits.ts), and a deadline or an abort kills it with
 * SIGKILL; the promise settles only after the process has exited, so nothing outlives the request.
 */

export interface FfmpegJob {
  /** A local file; it is opened as `file:<path>`, never as a URL. */
  input: string;
  /** The ffmpeg demuxer (`-f`) the input is read with; required, so that nothing is guessed. */
  demuxer: string;
  /** Options placed before the input, e.g. a seek. */
  inputOptions?: readonly string[];
  /** Further local inputs (`-i` 1, 2, …), each confined and read with its own demuxer. */
  moreInputs?: readonly FfmpegInput[];
  /** A local file, or `pipe:1` when the run is given a sink (`RunOptions.sink`). */
  output: string;
  outputOptions: readonly string[];
  /** Seconds of media the output will hold; turns ffmpeg's time mark into a percentage. */
  expectedSeconds?: number;
}

/** One more input of a job: a local file and the demuxer (or, for a list, the demuxers) it is read with. */
export interface FfmpegInput {
  path: string;
  demuxer: string | readonly string[];
  options?: readonly string[];
}

export interface RunOptions {
  timeoutMs: number;
  /** Where the output goes when the job writes to `pipe:1`: ffmpeg's stdout is piped into it. */
  sink?: Writable;
  signal?: AbortSignal;
  /** Percent done, 0–100, at most about twice a second as ffmpeg reports. */
  onProgress?: (percent: number) => void;
  /** The kernel's limits for the process; by default sized from the function and `timeoutMs`. */
  limits?: ProcessLimits;
}

export type MediaTool = 'ffmpeg' | 'ffprobe';

/**
 * How a run that did not succeed ended, as the process showed it (not as its log words it):
 * - `refused`: the tool ran to its end and exited non-zero: it read what it was given and said no;
 * - `report-too-large`: ffprobe's report passed the size that is read, and it was stopped for it;
 * - `over-memory-limit`: an allocation failed at the process's memory limit;
 * - `over-cpu-limit`: the process used up its CPU time (SIGXCPU);
 * - `over-frame-limit`: a decoder met a frame over `maxDecodedPixels` (its size changed mid-stream);
 * - `not-started`: the binary could not be run (ENOENT, EACCES, …);
 * - `killed`: a signal this code did not send ended it (the kernel's out-of-memory killer, …);
 * - `unreadable-report`: ffprobe exited 0 but printed no JSON.
 */
export type MediaToolOutcome =
  | 'refused'
  | 'report-too-large'
  | 'over-memory-limit'
  | 'over-cpu-limit'
  | 'over-frame-limit'
  | 'not-started'
  | 'killed'
  | 'unreadable-report';

/** ffmpeg or ffprobe ended with an error; `message` carries the tail of its log, for the native-error table. */
export class MediaToolError extends Error {
  readonly tool: MediaTool;
  readonly outcome: MediaToolOutcome;
  /** The limits the process ran under, to name the one it reached. */
  readonly limits: ProcessLimits | undefined;
  constructor(
    tool: MediaTool,
    outcome: MediaToolOutcome,
    detail: string,
    options?: { cause?: unknown; limits?: ProcessLimits },
  ) {
    super(`${tool} failed: ${detail}`, options);
    this.name = 'MediaToolError';
    this.tool = tool;
    this.outcome = outcome;
    this.limits = options?.limits;
  }
}

/** The run passed its deadline and was killed. */
export class MediaTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`media processing exceeded ${timeoutMs} ms and was killed`);
    this.name = 'MediaTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** The largest frame any decoder accepts, in pixels (8192 × 8192); see frame-bounds.ts. */
export const maxDecodedPixels = 8192 * 8192;

/**
 * Reads only local files, whatever a container may reference, with the one demuxer named (or, for
 * a list, only a demuxer of the list), and refuses any frame larger than the bound before a decoder
 * allocates it, even one whose size changes in the middle of a stream.
 */
const confinedInput = (demuxer: string | readonly string[]) => [
  '-nostdin',
  '-protocol_whitelist',
  'file',
  ...(typeof demuxer === 'string' ? ['-f', demuxer] : ['-format_whitelist', demuxer.join(',')]),
  '-max_pixels',
  String(maxDecodedPixels),
];

const lastLines = (text: string, count = 8) =>
  text
    .split(/\r?\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(frame|size)=/.test(line))
    .slice(-count)
    .join('\n');

/** The `time=HH:MM:SS.cc` of one of ffmpeg's own `-stats` lines, in seconds. */
function statsSeconds(line: string): number | undefined {
  const match = /\btime=\s*(-?\d+):(\d\d):(\d\d(?:\.\d+)?)/.exec(line);
  if (!match) return undefined;
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

/** The `frame=N` of one of ffmpeg's `-stats` lines: the frames written so far. */
function statsFrames(line: string): number | undefined {
  const match = /^frame=\s*(\d+)/.exec(line.trim());
  return match ? Number(match[1]) : undefined;
}

/** An allocation refused at the data limit, as ffmpeg's libraries word it (ENOMEM). */
const outOfMemory = /Cannot allocate memory|Out of memory|failed to allocate|malloc of size \d+ failed/i;

/** A decoder's refusal of a frame over `-max_pixels`. */
const overFramePixels = /exceeds specified max pixel count/;

/**
 * How a failed process ended, from its exit code or signal and, for memory, its log:
 * 126/127 come from the limiting shell when the binary could not be run; ffmpeg exits 255 when a
 * signal stopped it, and the only one it can get here that is not ours is SIGXCPU.
 */
function outcomeOf(
  code: number | null,
  signal: string | null,
  log: string,
  tool: MediaTool,
): MediaToolOutcome {
  if (signal === 'SIGXCPU') return 'over-cpu-limit';
  if (signal) return 'killed';
  if (code !== null && shellExecFailures.has(code)) return 'not-started';
  if (tool === 'ffmpeg' && code === 255) return 'over-cpu-limit';
  if (outOfMemory.test(log)) return 'over-memory-limit';
  if (overFramePixels.test(log)) return 'over-frame-limit';
  return 'refused';
}

function describeOutcome(outcome: MediaToolOutcome, code: number | null, log: string, limits: ProcessLimits) {
  if (outcome === 'not-started' && code !== null) return `${shellExecFailures.get(code)}: ${lastLines(log)}`;
  if (outcome === 'over-cpu-limit') return `CPU time limit of ${limits.cpuSeconds} s reached`;
  if (outcome === 'over-memory-limit') {
    return `memory limit of ${describeBytes(limits.dataBytes)} reached: ${lastLines(log)}`;
  }
  return lastLines(log) || `exit code ${code}`;
}

/**
 * A binary named by path must exist and be executable: checked here so that a missing or broken
 * install is told apart (ENOENT, EACCES) before the limiting shell runs it.
 */
async function assertRunnable(tool: MediaTool, binary: string): Promise<void> {
  if (!binary.includes('/')) return;
  await access(binary, constants.X_OK).catch((error: NodeJS.ErrnoException) => {
    throw new MediaToolError(tool, 'not-started', `${error.code ?? 'unknown'}: ${binary}`, { cause: error });
  });
}

/** The most of ffmpeg's log that is kept: its last lines are what the native-error table reads. */
const maxLogChars = 64 * 1024;

/** The inputs of a job, the first one and the others, in `-i` order. */
const inputsOf = (job: FfmpegJob): FfmpegInput[] => [
  { path: job.input, demuxer: job.demuxer, options: job.inputOptions ?? [] },
  ...(job.moreInputs ?? []),
];

/** The command line of one job, in ffmpeg's order: input options, input, output options, output. */
export function ffmpegArguments(job: FfmpegJob): string[] {
  return [
    ...inputsOf(job).flatMap((input) => [
      ...confinedInput(input.demuxer),
      ...(input.options ?? []),
      '-i',
      `file:${input.path}`,
    ]),
    '-y',
    '-v',
    'error',
    '-stats',
    ...job.outputOptions,
    job.output,
  ];
}

/** What a finished run reports: from the last of its stats, the seconds of media and the frames it wrote. */
export interface FfmpegRun {
  seconds: number | undefined;
  frames: number | undefined;
  /** The tail of its log (at `-v error`, only errors; a job may ask for more, e.g. a filter's report). */
  log: string;
}

/** The limits of fluent-ffmpeg's own `-formats` and `-encoders` runs, once per container. */
const capabilityLimits = processLimits(10_000);
await loadCapabilities(ffmpegPath, capabilityLimits);

/**
 * How the process ended, as fluent-ffmpeg's error words it ("ffmpeg exited with code N",
 * "ffmpeg was killed with signal S"); nothing when it failed before or at the spawn.
 */
function processEnd(message: string): { code: number | null; signal: string | null } | undefined {
  const exited = /^ffmpeg exited with code (\d+)/.exec(message);
  if (exited) return { code: Number(exited[1]), signal: null };
  const killed = /^ffmpeg was killed with signal (\w+)/.exec(message);
  if (killed) return { code: null, signal: killed[1] ?? null };
  return undefined;
}

/** Runs one ffmpeg job to completion, or kills it at the deadline or on abort. */
export async function runFfmpeg(job: FfmpegJob, options: RunOptions): Promise<FfmpegRun> {
  const { signal, timeoutMs, onProgress } = options;
  if (signal?.aborted) throw signal.reason;
  await assertRunnable('ffmpeg', ffmpegPath);
  if (signal?.aborted) throw signal.reason;
  const limits = options.limits ?? processLimits(timeoutMs);
  const launcher = await limitedLauncher(ffmpegPath, limits);
  if (signal?.aborted) throw signal.reason;
  const freePath = await holdFfmpegPath(launcher);
  // An abort while waiting for the path: its listener below would never hear it.
  if (signal?.aborted) {
    freePath();
    throw signal.reason;
  }
  return new Promise<FfmpegRun>((resolve, reject) => {
    let command: FfmpegCommand;
    try {
      // Each list is passed as separate arguments: given one array, fluent-ffmpeg would split any
      // option holding exactly one space in two. Both lists always hold more than one option.
      command = ffmpeg(commandOptions);
      for (const input of inputsOf(job)) {
        command
          .input(`file:${input.path}`)
          .inputOptions(...confinedInput(input.demuxer), ...(input.options ?? []));
      }
      command.output(options.sink ?? job.output).outputOptions('-v', 'error', '-stats', ...job.outputOptions);
    } catch (error) {
      // Never keep the path held: every later run waits for it.
      freePath();
      return reject(error);
    }

    let running = false;
    let stopped: 'timeout' | 'abort' | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      stopped ??= why;
      // Before the spawn there is no process yet; 'start' below kills it as soon as it exists.
      if (running) command.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('abort');
    signal?.addEventListener('abort', onAbort, { once: true });

    let log = '';
    let seconds: number | undefined;
    let frames: number | undefined;
    const expected = job.expectedSeconds ?? 0;
    // 'start' comes right after the spawn, with the process known to fluent-ffmpeg's kill().
    command.on('start', () => {
      running = true;
      freePath();
      if (stopped) command.kill('SIGKILL');
    });
    // Progress is read from ffmpeg's own stats lines (`-stats`, every half second), which
    // fluent-ffmpeg hands over one by one. Its 'progress' event is not used: listening to it makes
    // fluent-ffmpeg start its own ffprobe on the input, unconfined and with no deadline.
    command.on('stderr', (line: string) => {
      log = `${log}${line}\n`.slice(-maxLogChars);
      frames = statsFrames(line) ?? frames;
      const done = statsSeconds(line);
      if (done === undefined) return;
      seconds = done;
      if (onProgress && expected > 0) onProgress(Math.max(0, Math.min(100, (done / expected) * 100)));
    });

    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      running = false;
      freePath();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (stopped === 'timeout') reject(new MediaTimeoutError(timeoutMs));
      else if (stopped === 'abort') reject(signal?.reason ?? new Error('aborted'));
      else if (error) reject(error);
      else resolve({ seconds, frames, log });
    };
    // 'end' and 'error' come after the process has exited and its pipes have closed.
    command.on('end', () => {
      if (!stopped) onProgress?.(100);
      finish();
    });
    command.on('error', (error: Error) => {
      const end = processEnd(error.message);
      // No exit at all: fluent-ffmpeg refused the command while preparing it, or could not spawn.
      if (!end)
        return finish(new MediaToolError('ffmpeg', 'not-started', error.message, { cause: error, limits }));
      const outcome = outcomeOf(end.code, end.signal, log, 'ffmpeg');
      const detail = describeOutcome(outcome, end.code, log, limits);
      finish(new MediaToolError('ffmpeg', outcome, detail, { limits }));
    });
    try {
      command.run();
    } catch (error) {
      finish(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** What ffprobe reports with `-show_format -show_streams`, as parsed JSON. */
export interface RawProbe {
  format?: Record<string, unknown>;
  streams?: Array<Record<string, unknown>>;
}

/** The most of ffprobe's report that is read; a real file's report is a few kilobytes. */
const maxReportBytes = 8 * 1024 * 1024;

/** execFile's error, told apart by what happened to the process. */
function ffprobeFailure(
  error: ExecFileException,
  stderr: string,
  timeoutMs: number,
  limits: ProcessLimits,
): Error {
  // execFile kills the process itself when the report overflows, so this comes before `killed`.
  if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    return new MediaToolError('ffprobe', 'report-too-large', `report over ${maxReportBytes} bytes`, {
      cause: error,
    });
  }
  if (error.killed) return new MediaTimeoutError(timeoutMs);
  const code = typeof error.code === 'number' ? error.code : null;
  if (code === null && !error.signal) {
    return new MediaToolError('ffprobe', 'not-started', error.message, { cause: error, limits });
  }
  const outcome = outcomeOf(code, error.signal ?? null, stderr, 'ffprobe');
  const detail = describeOutcome(outcome, code, stderr, limits) || error.message;
  return new MediaToolError('ffprobe', outcome, detail, { cause: error, limits });
}

export interface ProbeRunOptions extends Omit<RunOptions, 'onProgress'> {
  /** What to report; default `-show_format -show_streams`. */
  report?: readonly string[];
}

/**
 * Runs ffprobe on a local file with a forced demuxer (or ffprobe's pick among a list of them),
 * killed at the deadline or on abort.
 */
export async function runFfprobe(
  path: string,
  demuxer: string | readonly string[],
  options: ProbeRunOptions,
): Promise<RawProbe> {
  const { signal, timeoutMs } = options;
  if (signal?.aborted) throw signal.reason;
  await assertRunnable('ffprobe', ffprobePath);
  if (signal?.aborted) throw signal.reason;
  const limits = options.limits ?? processLimits(timeoutMs);
  const args = [
    '-v',
    'error',
    ...confinedInput(demuxer).slice(1),
    '-print_format',
    'json',
    ...(options.report ?? ['-show_format', '-show_streams']),
    `file:${path}`,
  ];
  const command = limitedCommand(ffprobePath, args, limits);
  return new Promise<RawProbe>((resolve, reject) => {
    // execFile calls back once the process has exited and its pipes have closed.
    execFile(
      command.file,
      command.args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', signal, maxBuffer: maxReportBytes, windowsHide: true },
      (error, stdout, stderr) => {
        if (signal?.aborted) return reject(signal.reason);
        if (error) return reject(ffprobeFailure(error, stderr, timeoutMs, limits));
        try {
          resolve(JSON.parse(stdout) as RawProbe);
        } catch (cause) {
          reject(new MediaToolError('ffprobe', 'unreadable-report', 'output is no JSON', { cause }));
        }
      },
    );
  });
}
