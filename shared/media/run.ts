import { type ChildProcess, type ExecFileException, execFile } from 'node:child_process';
import ffmpeg from 'fluent-ffmpeg';
import { ffmpegPath, ffprobePath } from '#shared/media/binaries.ts';

/**
 * The only module that starts ffmpeg or ffprobe. Everything else describes a job in plain data
 * (input, demuxer, options, output), so the engine behind it can be swapped without touching the
 * converters or the handlers.
 *
 * Every run is confined: the input is read through the `file` protocol only and with the one
 * demuxer the caller names, and a deadline or an abort kills the process with SIGKILL; the promise
 * settles only after the process has exited, so nothing outlives the request.
 */

/**
 * fluent-ffmpeg looks for named presets next to its own source, through `__dirname`, which an ES
 * module bundle does not have. No preset is ever used here, so every command names a folder that is
 * never read.
 */
const commandOptions = { presets: 'unused-presets', stdoutLines: 40 } as const;

// Once per container: fluent-ffmpeg keeps the paths for every later command.
ffmpeg(commandOptions).setFfmpegPath(ffmpegPath).setFfprobePath(ffprobePath);

export interface FfmpegJob {
  /** A local file; it is opened as `file:<path>`, never as a URL. */
  input: string;
  /** The ffmpeg demuxer (`-f`) the input is read with; required, so that nothing is guessed. */
  demuxer: string;
  /** Options placed before the input, e.g. a seek. */
  inputOptions?: readonly string[];
  output: string;
  outputOptions: readonly string[];
  /** Seconds of media the output will hold; turns ffmpeg's time mark into a percentage. */
  expectedSeconds?: number;
}

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Percent done, 0–100, at most about twice a second as ffmpeg reports. */
  onProgress?: (percent: number) => void;
}

export type MediaTool = 'ffmpeg' | 'ffprobe';

/**
 * How a run that did not succeed ended, as the process showed it (not as its log words it):
 * - `refused`: the tool ran to its end and exited non-zero: it read what it was given and said no;
 * - `report-too-large`: ffprobe's report passed the size that is read, and it was stopped for it;
 * - `not-started`: the binary could not be run (ENOENT, EACCES, …);
 * - `killed`: a signal this code did not send ended it (the kernel's out-of-memory killer, …);
 * - `unreadable-report`: ffprobe exited 0 but printed no JSON.
 */
export type MediaToolOutcome =
  | 'refused'
  | 'report-too-large'
  | 'not-started'
  | 'killed'
  | 'unreadable-report';

/** ffmpeg or ffprobe ended with an error; `message` carries the tail of its log, for the native-error table. */
export class MediaToolError extends Error {
  readonly tool: MediaTool;
  readonly outcome: MediaToolOutcome;
  constructor(tool: MediaTool, outcome: MediaToolOutcome, detail: string, options?: { cause?: unknown }) {
    super(`${tool} failed: ${detail}`, options);
    this.name = 'MediaToolError';
    this.tool = tool;
    this.outcome = outcome;
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

/**
 * Reads only local files, whatever a container may reference. A list of demuxers lets the tool's
 * own probe pick among them (and no other), for a file the byte sniffer could not name.
 */
const confinedInput = (demuxer: string | readonly string[]) => [
  '-nostdin',
  '-protocol_whitelist',
  'file',
  ...(typeof demuxer === 'string' ? ['-f', demuxer] : ['-format_whitelist', demuxer.join(',')]),
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

/**
 * How a failed ffmpeg process ended. Node sets these before it emits the end, so they are read
 * the same whatever order the listeners run in; a spawn that failed has a negative exit code.
 */
function outcomeOf(child: ChildProcess | undefined): MediaToolOutcome {
  if (child?.signalCode) return 'killed';
  if (child?.exitCode && child.exitCode > 0) return 'refused';
  return 'not-started';
}

/** What a finished run reports: the last time mark of its stats, the seconds of media it wrote. */
export interface FfmpegRun {
  seconds: number | undefined;
}

/** Runs one ffmpeg job to completion, or kills it at the deadline or on abort. */
export function runFfmpeg(job: FfmpegJob, options: RunOptions): Promise<FfmpegRun> {
  const { signal, timeoutMs, onProgress } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<FfmpegRun>((resolve, reject) => {
    const command = ffmpeg(commandOptions)
      .input(`file:${job.input}`)
      .inputOptions([...confinedInput(job.demuxer), ...(job.inputOptions ?? [])])
      .output(job.output)
      .outputOptions(['-v', 'error', '-stats', ...job.outputOptions]);
    // The binaries are ours and known; fluent-ffmpeg would otherwise list formats and encoders by
    // spawning ffmpeg, unconfined and with no time limit, before the first job of each container.
    // No codec is named through its API, so the encoder list it reads would change nothing.
    const internals = command as unknown as {
      _checkCapabilities: (done: (error?: Error) => void) => void;
      availableEncoders: (done: (error: Error | null, encoders: object) => void) => void;
    };
    internals._checkCapabilities = (done) => done();
    internals.availableEncoders = (done) => done(null, {});

    let stopped: 'timeout' | 'abort' | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      stopped ??= why;
      // Before the spawn there is no process yet; 'start' below kills it as soon as it exists.
      if ((command as unknown as { ffmpegProc?: unknown }).ffmpegProc) command.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    let seconds: number | undefined;
    const finish = (error?: Error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (stopped === 'timeout') reject(new MediaTimeoutError(timeoutMs));
      else if (stopped === 'abort') reject(signal?.reason ?? new Error('aborted'));
      else if (error) reject(error);
      else resolve({ seconds });
    };

    // fluent-ffmpeg forgets its process before reporting the end; kept here to read how it ended.
    let child: ChildProcess | undefined;
    command.on('start', () => {
      child = (command as unknown as { ffmpegProc?: ChildProcess }).ffmpegProc;
      // When the spawn fails (ENOENT, EACCES, EMFILE, …) fluent-ffmpeg's own listener reads log
      // buffers that do not exist yet and throws, which would end the whole process and leave this
      // promise pending; the failure is reported here instead.
      child?.removeAllListeners('error');
      child?.on('error', (error) => {
        finish(new MediaToolError('ffmpeg', 'not-started', error.message, { cause: error }));
      });
      if (stopped) command.kill('SIGKILL');
    });
    // Progress is read from ffmpeg's own stats lines (`-stats`, every half second). fluent-ffmpeg's
    // 'progress' event is not used: listening to it makes fluent-ffmpeg start its own ffprobe on
    // the input, without the protocol whitelist, the forced demuxer or a deadline.
    const expected = job.expectedSeconds ?? 0;
    command.on('stderr', (line: string) => {
      const done = statsSeconds(line);
      if (done === undefined) return;
      seconds = done;
      if (onProgress && expected > 0) onProgress(Math.max(0, Math.min(100, (done / expected) * 100)));
    });
    // 'end' and 'error' come after the process has exited and its pipes have closed.
    command.on('end', () => {
      if (!stopped) onProgress?.(100);
      finish();
    });
    command.on('error', (error: Error, _stdout: string | null, stderr: string | null) => {
      finish(
        new MediaToolError('ffmpeg', outcomeOf(child), lastLines(stderr ?? '') || error.message, {
          cause: error,
        }),
      );
    });
    command.run();
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
function ffprobeFailure(error: ExecFileException, stderr: string, timeoutMs: number): Error {
  // execFile kills the process itself when the report overflows, so this comes before `killed`.
  if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    return new MediaToolError('ffprobe', 'report-too-large', `report over ${maxReportBytes} bytes`, {
      cause: error,
    });
  }
  if (error.killed) return new MediaTimeoutError(timeoutMs);
  const outcome: MediaToolOutcome =
    typeof error.code === 'number' ? 'refused' : error.signal ? 'killed' : 'not-started';
  return new MediaToolError('ffprobe', outcome, lastLines(stderr) || error.message, { cause: error });
}

export interface ProbeRunOptions extends Omit<RunOptions, 'onProgress'> {
  /** What to report; default `-show_format -show_streams`. */
  report?: readonly string[];
}

/**
 * Runs ffprobe on a local file with a forced demuxer (or ffprobe's pick among a list of them),
 * killed at the deadline or on abort.
 */
export function runFfprobe(
  path: string,
  demuxer: string | readonly string[],
  options: ProbeRunOptions,
): Promise<RawProbe> {
  const { signal, timeoutMs } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const args = [
    '-v',
    'error',
    ...confinedInput(demuxer).slice(1),
    '-print_format',
    'json',
    ...(options.report ?? ['-show_format', '-show_streams']),
    `file:${path}`,
  ];
  return new Promise<RawProbe>((resolve, reject) => {
    // execFile calls back once the process has exited and its pipes have closed.
    execFile(
      ffprobePath,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', signal, maxBuffer: maxReportBytes, windowsHide: true },
      (error, stdout, stderr) => {
        if (signal?.aborted) return reject(signal.reason);
        if (error) return reject(ffprobeFailure(error, stderr, timeoutMs));
        try {
          resolve(JSON.parse(stdout) as RawProbe);
        } catch (cause) {
          reject(new MediaToolError('ffprobe', 'unreadable-report', 'output is no JSON', { cause }));
        }
      },
    );
  });
}
