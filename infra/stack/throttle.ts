import { type TierName, tiers } from '#shared/tiers.ts';

/** An API Gateway usage-plan throttle: a token bucket. */
export interface Throttle {
  /** Tokens added per second: the long-run request rate. */
  rateLimit: number;
  /** Bucket size: how many requests may arrive at once. */
  burstLimit: number;
}

/**
 * "N requests per minute" as API Gateway's token bucket: the bucket refills at N/60 requests per
 * second, so over any longer stretch a key averages N per minute; it holds a tenth of a minute's
 * allowance (at least 1), so a client may send that many at once. A fresh client can therefore
 * send at most N + N/10 in its first minute, and exactly N per minute after that.
 */
export function throttleFor(requestsPerMinute: number): Throttle {
  if (!Number.isInteger(requestsPerMinute) || requestsPerMinute < 1) {
    throw new Error(`requests per minute must be a positive integer, got ${requestsPerMinute}`);
  }
  return { rateLimit: requestsPerMinute / 60, burstLimit: Math.max(1, Math.ceil(requestsPerMinute / 10)) };
}

/**
 * How many anonymous clients the free tier's shared usage plan is sized for. Anonymous calls all
 * carry the free tier's one shared key, so that plan is a ceiling on the whole anonymous pool; the
 * per-IP limit of the contract is the WAF rule's job.
 */
export const defaultFreeTierClients = 100;

/** The per-minute allowance of each tier's usage plan. */
export function planRequestsPerMinute(tier: TierName, freeTierClients = defaultFreeTierClients): number {
  return tier === 'free' ? tiers.free.requestsPerMinute * freeTierClients : tiers[tier].requestsPerMinute;
}
