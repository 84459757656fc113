/* What a load run found, and which of it makes the run fail. */

/** The gateway process's memory, idle, after a full garbage collection. */
export interface MemoryReading {
  /** Live JavaScript heap. */
  heapMiB: number;
  /** Resident set size: the heap, native memory (libvips, buffers) and code. */
  rssMiB: number;
}

export interface LoadReport {
  requests: number;
  /** Answers by status code; transport failures (reset, hang-up, timeout) under `lost`. */
  statuses: Record<string, number>;
  byRoute: Record<string, number>;
  /** Answers that do not belong to their request, or broke the contract. */
  mismatches: string[];
  lost: string[];
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  requestsPerSecond: number;
  /** The gateway's memory when idle: before the traffic and after each of two identical rounds. */
  memory: {
    baseline: MemoryReading;
    afterFirstRound: MemoryReading;
    afterSecondRound: MemoryReading;
    /** The highest RSS sampled during the first round. */
    firstRoundPeakRssMiB: number;
  };
  leftoverWorkspaces: string[];
}

/**
 * What the first round may leave on the live heap for good: code compiled for the traffic and the
 * lazily built parts of the handlers, filled once, not per request.
 */
export const FIRST_ROUND_HEAP_MIB = 8;

/**
 * How much of its peak the resident size may keep after the first round: a third of what the
 * traffic took, or 12 MiB when the peak was small. Not all of it comes back (the allocator keeps
 * some arenas of the threads libvips and the thread pool started, V8 some committed young
 * generation), but a process that hands nothing back fails whatever its peak.
 */
export const firstRoundRssLimit = (baselineMiB: number, peakMiB: number) =>
  baselineMiB + Math.max(12, (peakMiB - baselineMiB) / 3);

/**
 * What a second round of as many requests may add on top of the first: noise, since whatever fills
 * once is full by then. A request that kept 4 KiB of heap would grow it by about 3 MiB in the short
 * run of the test suite (some 700 requests a round), and by far more in `npm run load`.
 */
export const SECOND_ROUND_ALLOWANCE = { heapMiB: 2, rssMiB: 8 };

const mib = (value: number) => `${value.toFixed(1)} MiB`;

/** Why the gateway's memory did not come back after the traffic, in words. */
export function memoryProblems(memory: LoadReport['memory']): string[] {
  const { baseline, afterFirstRound: first, afterSecondRound: second, firstRoundPeakRssMiB: peak } = memory;
  const problems: string[] = [];
  const check = (what: string, from: number, to: number, limit: number, when: string) => {
    if (to > limit)
      problems.push(`${what} went from ${mib(from)} to ${mib(to)} ${when} (limit ${mib(limit)})`);
  };
  const firstRss = firstRoundRssLimit(baseline.rssMiB, peak);
  check('RSS', baseline.rssMiB, first.rssMiB, firstRss, `over the first round, peak ${mib(peak)}`);
  check(
    'live heap',
    baseline.heapMiB,
    first.heapMiB,
    baseline.heapMiB + FIRST_ROUND_HEAP_MIB,
    'over the first round',
  );
  check(
    'RSS',
    first.rssMiB,
    second.rssMiB,
    first.rssMiB + SECOND_ROUND_ALLOWANCE.rssMiB,
    'over the second round',
  );
  check(
    'live heap',
    first.heapMiB,
    second.heapMiB,
    first.heapMiB + SECOND_ROUND_ALLOWANCE.heapMiB,
    'over the second round',
  );
  return problems;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/** Everything that makes a run fail, in words. */
export function problemsOf(report: LoadReport): string[] {
  const problems: string[] = [];
  const serverErrors = Object.entries(report.statuses).filter(([status]) => Number(status) >= 500);
  if (serverErrors.length) problems.push(`5xx answers: ${JSON.stringify(Object.fromEntries(serverErrors))}`);
  if (report.lost.length) problems.push(`${report.lost.length} lost: ${report.lost.slice(0, 5).join('; ')}`);
  if (report.mismatches.length) {
    problems.push(`${report.mismatches.length} wrong answers: ${report.mismatches.slice(0, 5).join('; ')}`);
  }
  problems.push(...memoryProblems(report.memory));
  if (report.leftoverWorkspaces.length)
    problems.push(`workspaces left: ${report.leftoverWorkspaces.join(', ')}`);
  return problems;
}
