import { config } from '#shared/config.ts';

const levels = { silent: 0, error: 1, info: 2, debug: 3 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

/** One JSON line per event: request id, route, sizes and timings. Never whole events or bodies. */
export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] > levels[config.LOG_LEVEL]) return;
  process.stdout.write(`${JSON.stringify({ level, message, time: new Date().toISOString(), ...fields })}\n`);
}
