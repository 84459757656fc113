import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { type LoadReport, memoryProblems } from '../../scripts/load/report.ts';
import { runLoad } from '../../scripts/load.ts';

/**
 * A short version of `scripts/load.ts`: a few seconds of mixed traffic at four times the cores
 * against the local gateway, in two rounds. No 5xx, no lost answer, every answer matching its own
 * request, no workspace left. Its throughput and memory are measured by `npm run test:perf`; the
 * long run is the script itself.
 */
describe('the local gateway under a short mixed load', () => {
  it('answers every request correctly and cleans up after itself', async () => {
    const report = await runLoad({ durationMs: 3000, concurrency: availableParallelism() * 4 });
    // Memory readings and the request count depend on the machine: test/perf/load.test.ts checks them.
    expect(report.lost).toEqual([]);
    expect(report.mismatches).toEqual([]);
    expect(report.leftoverWorkspaces).toEqual([]);
    expect(report.requests).toBeGreaterThan(0);
    expect(report.statuses).toEqual({ 200: report.requests });
    const fileRoutes = routes.filter((route) => route.kind === 'file').map((route) => route.path);
    expect(Object.keys(report.byRoute)).toEqual(expect.arrayContaining(['/hash', '/slugify', '/checksum']));
    expect(Object.keys(report.byRoute).some((path) => fileRoutes.includes(path))).toBe(true);
  }, 240_000);
});

describe('what the load run counts as memory not coming back', () => {
  // Readings of a healthy run on a two-core machine (eight requests in flight).
  const healthy: LoadReport['memory'] = {
    baseline: { heapMiB: 34.3, rssMiB: 144.5 },
    firstRoundPeakRssMiB: 182.1,
    afterFirstRound: { heapMiB: 36.1, rssMiB: 149.7 },
    afterSecondRound: { heapMiB: 36.3, rssMiB: 150.4 },
  };

  it('passes a run whose memory came back', () => {
    expect(memoryProblems(healthy)).toEqual([]);
  });

  it('fails a resident size that stays near its peak after the first round', () => {
    const kept = { ...healthy, afterFirstRound: { heapMiB: 36.1, rssMiB: 178 } };
    expect(memoryProblems(kept)).toEqual([
      expect.stringMatching(/^RSS went from 144\.5 MiB to 178\.0 MiB over the first round/),
    ]);
  });

  it('fails a second round that grows the live heap or the resident size', () => {
    const leaking = { ...healthy, afterSecondRound: { heapMiB: 39.5, rssMiB: 160 } };
    expect(memoryProblems(leaking)).toEqual([
      expect.stringMatching(/^RSS went from 149\.7 MiB to 160\.0 MiB over the second round/),
      expect.stringMatching(/^live heap went from 36\.1 MiB to 39\.5 MiB over the second round/),
    ]);
  });

  it('fails a live heap that grew by more than one-time caches over the first round', () => {
    const grown = {
      ...healthy,
      afterFirstRound: { heapMiB: 45, rssMiB: 149.7 },
      afterSecondRound: { heapMiB: 45, rssMiB: 150.4 },
    };
    expect(memoryProblems(grown)).toEqual([
      expect.stringMatching(/^live heap went from 34\.3 MiB to 45\.0 MiB/),
    ]);
  });
});
