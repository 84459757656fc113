import type { RouteSpec } from '#shared/routes/types.ts';
import { formatBytes, formatMs } from './measure.ts';
import type { Table } from './report.ts';

/**
 * Budget 7 of issue 19: the Lambda cost of 1 000 requests from a measured duration and the
 * function's configured memory (its route row's `sizing`), and the smallest memory size that
 * leaves headroom over the measured peak, beside a hosted competitor's published price.
 */

/**
 * AWS Lambda on-demand, x86, us-east-1, first pricing tier, as stated in AWS's whitepaper "How AWS
 * Pricing Works" (docs.aws.amazon.com/whitepapers/latest/how-aws-pricing-works/lambda.html), read
 * 2026-11-25. Check aws.amazon.com/lambda/pricing before relying on them.
 */
export const lambdaPrices = { perGbSecond: 0.0000166667, perRequest: 0.2 / 1_000_000 } as const;

/**
 * LightPDF's converter API, as its own pricing page states (lightpdf.com/convert-api-pricing, read
 * 2026-11-25): 0.05 USD a conversion at the default 2 requests a second, one conversion per 20 MB
 * or 100 pages started.
 */
export const competitorPerConversion = { name: 'LightPDF API', usd: 0.05 } as const;

/** The headroom asked over the measured worst-case peak before a memory size counts as enough. */
export const HEADROOM = 1.5;

const MiB = 1024 * 1024;

/** Compute (memory × duration billed to the next millisecond) plus requests, for `count` requests. */
export function lambdaCost(memoryMiB: number, ms: number, count = 1000): number {
  const gbSeconds = (memoryMiB / 1024) * (Math.ceil(ms) / 1000);
  return count * (gbSeconds * lambdaPrices.perGbSecond + lambdaPrices.perRequest);
}

/**
 * The smallest memory size with HEADROOM over `peakBytes`, in Lambda's usual steps of 128 MiB
 * (any size from 128 to 10 240 MiB may be set).
 */
export function sizeFromPeak(peakBytes: number): number {
  const needed = (peakBytes * HEADROOM) / MiB;
  return Math.min(10_240, Math.max(128, Math.ceil(needed / 128) * 128));
}

export interface CostEntry {
  family: string;
  request: string;
  route: RouteSpec;
  measured: { ms: number; worst: number };
}

const usd = (value: number) => `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;

export function costTable(entries: readonly CostEntry[]): { table: Table; notes: string[] } {
  const rows = entries.map(({ family, request, route, measured }) => {
    const configured = route.sizing.memoryMiB;
    const proposed = sizeFromPeak(measured.worst);
    return [
      family,
      request,
      formatMs(measured.ms),
      formatBytes(measured.worst),
      `${configured} MB`,
      usd(lambdaCost(configured, measured.ms)),
      `${proposed} MB`,
      usd(competitorPerConversion.usd * 1000),
    ];
  });
  return {
    table: {
      caption:
        'Lambda cost of 1 000 such requests at the configured memory, and the size the measured peak asks for',
      head: [
        'Family',
        'Request',
        'Duration (median)',
        'Peak (worst)',
        'Configured',
        'Lambda cost per 1 000',
        `Smallest size ≥ ${HEADROOM}× peak`,
        `${competitorPerConversion.name} per 1 000`,
      ],
      rows,
    },
    notes: [
      `Lambda: $${lambdaPrices.perGbSecond} per GB-second and $0.20 per million requests (on-demand x86, ` +
        "us-east-1, as AWS published them; check before use). Durations are the local gateway's on this " +
        'machine, a stand-in for the billed duration: below 1 769 MB Lambda gives less than one vCPU, so ' +
        'a smaller size makes CPU-bound work slower and its cost per request about the same.',
    ],
  };
}
