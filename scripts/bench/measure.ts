/** Timing and statistics shared by every benchmark section. */

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** Milliseconds one call takes, with its result. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

export interface Contender<T = unknown> {
  name: string;
  run: () => Promise<T>;
  /** Untimed, after each of its runs (the warm-up too): e.g. a look at /proc. */
  after?: () => Promise<void>;
}

export interface Contest<T = unknown> {
  /** Milliseconds per run, per contender, in the order given. */
  times: Map<string, number[]>;
  /** The last result of each contender (e.g. an output size). */
  results: Map<string, T>;
}

/**
 * Runs every contender `runs` times, interleaved (A B C, B C A, …) after one untimed warm-up each,
 * so that a change in the machine's load falls on all of them alike.
 */
export async function contest<T>(
  contenders: readonly Contender<T>[],
  runs: number,
  options: { warmup?: boolean } = {},
): Promise<Contest<T>> {
  const times = new Map(contenders.map((contender) => [contender.name, [] as number[]]));
  const results = new Map<string, T>();
  if (options.warmup !== false) {
    for (const contender of contenders) {
      results.set(contender.name, await contender.run());
      await contender.after?.();
    }
  }
  for (let run = 0; run < runs; run += 1) {
    for (let turn = 0; turn < contenders.length; turn += 1) {
      const contender = contenders[(run + turn) % contenders.length]!;
      const { ms, value } = await timed(contender.run);
      times.get(contender.name)!.push(ms);
      results.set(contender.name, value);
      await contender.after?.();
    }
  }
  return { times, results };
}

/**
 * The ratio of two contenders' times, as the median of the ratios of runs taken side by side:
 * steadier than a ratio of medians while the machine's load drifts.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, index) => value / (b[index] ?? Number.NaN)));
}

export const formatMs = (ms: number): string =>
  Number.isNaN(ms) ? '—' : ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;

export const formatBytes = (bytes: number | undefined): string => {
  if (bytes === undefined || Number.isNaN(bytes)) return '—';
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(bytes >= 100_000_000 ? 0 : 1)} MB`;
  return `${Math.round(bytes / 1000)} KB`;
};

export const formatRatio = (ratio: number): string => (Number.isNaN(ratio) ? '—' : `${ratio.toFixed(2)}×`);

export const formatPercent = (fraction: number): string =>
  Number.isNaN(fraction) ? '—' : `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)} %`;
