import { describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { problemsOf } from '../../scripts/load/report.ts';
import { runLoad } from '../../scripts/load.ts';

/**
 * A short version of `scripts/load.ts`: a few seconds of mixed traffic at four times the cores
 * against the local gateway. No 5xx, no lost answer, every answer matching its own request, memory
 * back near its baseline and no workspace left. The long run is the script itself.
 */
describe('the local gateway under a short mixed load', () => {
  it('answers every request correctly and cleans up after itself', async () => {
    const report = await runLoad({ durationMs: 3000, concurrency: 8 });
    expect(problemsOf(report)).toEqual([]);
    expect(report.requests).toBeGreaterThan(100);
    expect(report.statuses).toEqual({ 200: report.requests });
    const fileRoutes = routes.filter((route) => route.kind === 'file').map((route) => route.path);
    expect(Object.keys(report.byRoute)).toEqual(expect.arrayContaining(['/hash', '/slugify', '/checksum']));
    expect(Object.keys(report.byRoute).some((path) => fileRoutes.includes(path))).toBe(true);
  }, 90_000);
});
