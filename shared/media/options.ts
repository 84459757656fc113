import { availableParallelism } from 'node:os';
import type { MediaInfo } from '#shared/media/probe.ts';

export interface Trim {
  start?: number | undefined;
  duration?: number | undefined;
}

const secondsArg = (seconds: number) => String(Number(seconds.toFixed(3)));

/**
 * A start is a seek before the input (fast, and exact to the frame whenever the stream is decoded);
 * a duration limits the output.
 */
export function trimOptions(trim: Trim): { input: string[]; output: string[] } {
  return {
    input: trim.start ? ['-ss', secondsArg(trim.start)] : [],
    output: trim.duration !== undefined ? ['-t', secondsArg(trim.duration)] : [],
  };
}

/** How many seconds the result will hold, when the source says how long it is. */
export function trimmedSeconds(info: MediaInfo, trim: Trim): number | undefined {
  const rest = info.durationSeconds === undefined ? undefined : info.durationSeconds - (trim.start ?? 0);
  if (rest === undefined) return trim.duration;
  return trim.duration === undefined ? rest : Math.min(rest, trim.duration);
}

/** How far past the tier's limit a conversion may read: enough to tell a source that goes on. */
export const overrunSeconds = 1;

/**
 * A header can understate a source's length, and a source whose packets could not be counted was
 * checked against nothing; so every result is cut a little past the tier's limit, whatever the
 * header said, and a result that reaches past the limit is refused (job.ts).
 */
export function boundedTrim<T extends Trim>(trim: T, maxSeconds: number): T {
  const bound = maxSeconds + overrunSeconds;
  if (trim.duration !== undefined && trim.duration <= bound) return trim;
  return { ...trim, duration: bound };
}

/** Encoders use every core the function has. */
export function encoderThreads(): string[] {
  return ['-threads', String(availableParallelism())];
}
