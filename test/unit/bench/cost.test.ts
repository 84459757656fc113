import { describe, expect, it } from 'vitest';
import { imageConvertRoute } from '#shared/routes/image.ts';
import { costTable, HEADROOM, lambdaCost, sizeFromPeak } from '../../../scripts/bench/cost.ts';

const MiB = 1024 * 1024;

describe('bench cost figures', () => {
  it('prices 1 000 requests as compute billed to the next millisecond plus requests', () => {
    // 1 GB for 1 s is one GB-second; 2048 MB for 130.2 ms bills 131 ms.
    expect(lambdaCost(1024, 1000)).toBeCloseTo(1000 * (0.0000166667 + 0.0000002), 10);
    expect(lambdaCost(2048, 130.2)).toBeCloseTo(1000 * (2 * 0.131 * 0.0000166667 + 0.0000002), 10);
  });

  it('sizes memory as the smallest 128 MiB step with the headroom over the peak', () => {
    expect(HEADROOM).toBe(1.5);
    expect(sizeFromPeak(10 * MiB)).toBe(128);
    // 821 MB × 1.5 = 1174 MiB → 1280; exactly 512 MiB of need stays 512.
    expect(sizeFromPeak(821_000_000)).toBe(1280);
    expect(sizeFromPeak((512 / 1.5) * MiB)).toBe(512);
    expect(sizeFromPeak(20_000 * MiB)).toBe(10_240);
  });

  it("reads the configured memory from the route's row", () => {
    const { table } = costTable([
      { family: 'images', request: 'x', route: imageConvertRoute, measured: { ms: 1000, worst: 300 * MiB } },
    ]);
    expect(table.rows[0]?.[4]).toBe(`${imageConvertRoute.sizing.memoryMiB} MB`);
    expect(table.rows[0]?.[6]).toBe('512 MB');
  });
});
