/* What a load run found, and which of it makes the run fail. */

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
  rssMiB: { baseline: number; peak: number; after: number };
  /** Live JavaScript heap after a full garbage collection, before and after the traffic. */
  heapUsedMiB: { baseline: number; after: number };
  /** Whether the RSS came back near the baseline (see settleLimit) within the settling time. */
  memorySettled: boolean;
  leftoverWorkspaces: string[];
}

/** "Near the baseline": a little growth is the heap sizing itself and allocator caches, not a leak. */
export const settleLimit = (baselineMiB: number) => baselineMiB * 1.2 + 48;

/** What may stay on the live heap after the traffic: caches that fill once, not per request. */
const HEAP_SLACK_MIB = 16;

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
  if (!report.memorySettled) {
    problems.push(
      `RSS stayed at ${report.rssMiB.after.toFixed(1)} MiB after the run (baseline ${report.rssMiB.baseline.toFixed(1)} MiB)`,
    );
  }
  if (report.heapUsedMiB.after > report.heapUsedMiB.baseline + HEAP_SLACK_MIB) {
    problems.push(
      `live heap grew from ${report.heapUsedMiB.baseline.toFixed(1)} to ${report.heapUsedMiB.after.toFixed(1)} MiB`,
    );
  }
  if (report.leftoverWorkspaces.length)
    problems.push(`workspaces left: ${report.leftoverWorkspaces.join(', ')}`);
  return problems;
}
