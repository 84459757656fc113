import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { svgLimits } from '#shared/image/limits.ts';
import { assertSelfContainedSvg } from '#shared/image/svg-guard.ts';
import { pdfLimits } from '#shared/pdf/limits.ts';
import { openPdf } from '#shared/pdf/open.ts';

/**
 * Wall-clock budgets of the checks that must stay cheap. They depend on the machine, so they run
 * in `npm run test:perf` on a quiet machine, not in `npm test`; the behaviour behind each one is
 * checked in the unit tests without a clock.
 */
const svg = (inner: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${inner}</svg>`;

const outcome = (check: () => unknown) => {
  try {
    check();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return 'accepted';
};

const timed = async <T>(work: () => T | Promise<T>) => {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
};

describe('SVG guard', () => {
  it('stops at the first element past the depth limit within a second, however deep the document goes', async () => {
    const text = svg(`${'<g>'.repeat(200_000)}${'</g>'.repeat(200_000)}`);
    const { result, ms } = await timed(() => outcome(() => assertSelfContainedSvg(text)));
    expect(result).toBe('invalid_source_file');
    expect(ms).toBeLessThan(1000);
  });

  it('checks the largest document it accepts within a second', async () => {
    const levels = svgLimits.maxDepth - 1;
    const chain = `${'<g>'.repeat(levels)}${'</g>'.repeat(levels)}`;
    const text = svg(chain.repeat(Math.floor((svgLimits.maxElements - 1) / levels)));
    const { result, ms } = await timed(() => outcome(() => assertSelfContainedSvg(text)));
    expect(result).toBe('accepted');
    expect(ms).toBeLessThan(1000);
  });
});

describe('PDF opening', () => {
  it('gives up on 3 MB of garbage within three seconds when the budget is 200 ms', async () => {
    const garbage = Buffer.concat([
      Buffer.from('%PDF-1.7\n'),
      randomBytes(3_000_000),
      Buffer.from('\n%%EOF\n'),
    ]);
    const limits = { ...pdfLimits, parseBaseMs: 200, parseMsPerMegabyte: 0 };
    const { result, ms } = await timed(() => openPdf(garbage, { limits }).catch((error: unknown) => error));
    expect(result).toMatchObject({ code: 'invalid_source_file' });
    expect(ms).toBeLessThan(3000);
  });
});
