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
  asyncJobs: boolean;
}

const MB = 1_000_000;

export const tiers: Record<TierName, TierLimits> = {
  free: {
    requestsPerMinute: 10,
    maxSourceBytes: 20 * MB,
    maxMediaSeconds: 120,
    maxBatchFiles: 5,
    asyncJobs: false,
  },
  pro: {
    requestsPerMinute: 100,
    maxSourceBytes: 200 * MB,
    maxMediaSeconds: 30 * 60,
    maxBatchFiles: 50,
    asyncJobs: true,
  },
  enterprise: {
    requestsPerMinute: 1000,
    maxSourceBytes: 1000 * MB,
    maxMediaSeconds: 60 * 60,
    maxBatchFiles: 200,
    asyncJobs: true,
  },
};

export const isTierName = (value: unknown): value is TierName =>
  typeof value === 'string' && (tierNames as readonly string[]).includes(value);

/** The cheapest tier whose limit passes `fits`, for messages like "upgrade to pro to lift this". */
export function tierThatLifts(fits: (limits: TierLimits) => boolean): TierName | undefined {
  return tierNames.find((name) => fits(tiers[name]));
}
