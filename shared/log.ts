import { config } from '#shared/config.ts';

const levels = { silent: 0, error: 1, info: 2, debug: 3 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

/** In Lambda each line is written at once: a container frozen after its answer holds none back. */
let write = (line: string): void => {
  process.stdout.write(line);
};

/** One JSON line per event: request id, route, sizes and timings. Never whole events or bodies. */
export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] > levels[config.LOG_LEVEL]) return;
  write(`${JSON.stringify({ level, message, time: new Date().toISOString(), ...fields })}\n`);
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
