import { config } from '#shared/config.ts';
import { type RequestFacts, requestMetrics } from '#shared/metrics.ts';
import { formatBytes } from '#shared/units.ts';

const levels = { silent: 0, error: 1, info: 2, debug: 3 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

/** In Lambda each line is written at once: a container frozen after its answer holds none back. */
let write = (line: string): void => {
  process.stdout.write(line);
};

/** One line per event: request id, route, sizes and timings. Never whole events or bodies. */
export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] > levels[config.LOG_LEVEL]) return;
  const time = new Date().toISOString();
  write(
    config.LOG_FORMAT === 'text'
      ? `${textLine(time, level, message, fields)}\n`
      : `${JSON.stringify({ level, message, time, ...fields })}\n`,
  );
}

/** `12:00:01 error request failed route=pdf-merge cause=…`: the clock time, then the fields. */
export function textLine(
  time: string,
  level: Level,
  message: string,
  fields: Record<string, unknown>,
): string {
  const shown = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [time.slice(11, 19), level === 'info' ? '' : level, message, ...shown].filter(Boolean).join(' ');
}

/** `12:00:01 200 /image-convert pro 834 ms, 83 bytes in, 45.6 kB out`: a request, for a terminal. */
export function textRequestLine(time: string, line: RequestLine): string {
  const outcome = line.errorCode ? `${line.status} ${line.errorCode}` : String(line.status);
  const sizes = `${formatBytes(line.bytesIn)} in${line.bytesOut === undefined ? '' : `, ${formatBytes(line.bytesOut)} out`}`;
  return `${time.slice(11, 19)} ${outcome} /${line.route} ${line.tier} ${line.durationMs} ms, ${sizes}`;
}

/** What the request line says: who asked for what, how it ended, sizes and timings. */
export interface RequestLine extends RequestFacts {
  requestId: string;
  downloadMs?: number | undefined;
  uploadMs?: number | undefined;
}

/**
 * The one line per request, which is also its metrics: CloudWatch reads the embedded metric format
 * from the line itself, so measuring a request costs no call and no line of its own.
 */
export function logRequest(line: RequestLine): void {
  if (levels.info > levels[config.LOG_LEVEL]) return;
  if (config.LOG_FORMAT === 'text') write(`${textRequestLine(new Date().toISOString(), line)}\n`);
  else log('info', 'request', { ...line, ...requestMetrics(line) });
}

/**
 * Hands every line to `to` instead of writing it: a worker process of the local gateway sends its
 * lines to the gateway with its answer, as Lambda's runtime hands a function's output to its log.
 */
export function redirectLogLines(to: (line: string) => void): void {
  write = to;
}

/** Writes lines another process logged (a worker's) as this process writes its own. */
export function writeLogLines(lines: string): void {
  write(lines);
}

/**
 * For a process that serves many requests at once (the local gateway): the lines of one turn of
 * the event loop are written together when it ends, one write instead of one per request, and
 * whatever is left is written when the process exits.
 */
export function batchLogLines(): void {
  let pending = '';
  const flush = () => {
    const lines = pending;
    pending = '';
    if (lines) process.stdout.write(lines);
  };
  write = (line) => {
    if (!pending) setImmediate(flush);
    pending += line;
  };
  process.once('exit', flush);
}
