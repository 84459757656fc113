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

/**
 * A source that does not state its duration could not be checked against the tier's limit before
 * converting; its result is cut at that limit instead.
 */
export function boundedTrim<T extends Trim>(info: MediaInfo, trim: T, maxSeconds: number): T {
  if (info.durationSeconds !== undefined) return trim;
  return { ...trim, duration: Math.min(trim.duration ?? maxSeconds, maxSeconds) };
}

/** Encoders use every core the function has. */
export function encoderThreads(): string[] {
  return ['-threads', String(availableParallelism())];
}
