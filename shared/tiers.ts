/**
 * The tier table of the contract. The local gateway, the Lambda handlers and the CDK usage plans
 * all read their limits from here.
 */
export const tierNames = ['free', 'pro', 'enterprise'] as const;
export type TierName = (typeof tierNames)[number];

export interface TierLimits {
  requestsPerMinute: number;
  maxSourceBytes: number;
  maxMediaSeconds: number;
  maxBatchFiles: number;
}

const MB = 1_000_000;

export const tiers: Record<TierName, TierLimits> = {
  free: {
    requestsPerMinute: 10,
    maxSourceBytes: 20 * MB,
    maxMediaSeconds: 120,
    maxBatchFiles: 5,
  },
  pro: {
    requestsPerMinute: 100,
    maxSourceBytes: 200 * MB,
    maxMediaSeconds: 30 * 60,
    maxBatchFiles: 50,
  },
  enterprise: {
    requestsPerMinute: 1000,
    maxSourceBytes: 1000 * MB,
    maxMediaSeconds: 60 * 60,
    maxBatchFiles: 200,
  },
};

export const isTierName = (value: unknown): value is TierName =>
  typeof value === 'string' && (tierNames as readonly string[]).includes(value);

/** Tier names in prose, in the table's order: "pro and enterprise". */
export function tierList(names: readonly TierName[]): string {
  const ordered = tierNames.filter((name) => names.includes(name));
  return ordered.length < 2 ? ordered.join('') : `${ordered.slice(0, -1).join(', ')} and ${ordered.at(-1)}`;
}

/** The cheapest tier whose limit passes `fits`, for messages like "upgrade to pro to lift this". */
export function tierThatLifts(fits: (limits: TierLimits) => boolean): TierName | undefined {
  return tierNames.find((name) => fits(tiers[name]));
}
