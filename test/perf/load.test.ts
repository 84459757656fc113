import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../scripts/load/report.ts';
import { runLoad } from '../../scripts/load.ts';

/**
 * Throughput and memory of the local gateway under three seconds of mixed load. `npm test` runs the
 * same load for its answers only (test/hardening/load.test.ts); the counts and memory readings
 * depend on the machine, so they are checked here.
 */
describe('the local gateway under a short mixed load', () => {
  it('serves more than 100 requests in three seconds and hands its memory back', async () => {
    const report = await runLoad({ durationMs: 3000, concurrency: availableParallelism() * 4 });
    expect(problemsOf(report)).toEqual([]);
    expect(report.requests).toBeGreaterThan(100);
  }, 90_000);
});
