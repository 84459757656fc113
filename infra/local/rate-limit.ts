import { type TierName, tiers } from '#shared/tiers.ts';

const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window. */
  resetSeconds: number;
}

/** A caller's request times in the window, oldest first; `head` skips those already expired. */
interface Hits {
  times: number[];
  head: number;
}

/**
 * A sliding 60 s window per caller (client IP for anonymous calls, the key otherwise), as the
 * contract states. API Gateway usage plans and the WAF rule enforce the same limits in AWS.
 * Each request costs O(1): expired times are skipped from the front, never filtered, so a key with
 * a high limit does not make every request scan a minute's worth of history.
 */
export class SlidingWindowLimiter {
  readonly #hits = new Map<string, Hits>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Counts a request if the caller is under the limit. */
  take(callerId: string, limit: number): RateDecision {
    const now = this.#now();
    const hits = this.#current(callerId, now);
    if (hits && hits.times.length - hits.head >= limit) return this.#decision(hits, limit, now);
    if (hits) hits.times.push(now);
    else this.#hits.set(callerId, { times: [now], head: 0 });
    return { ...this.#decision(this.#hits.get(callerId), limit, now), allowed: true };
  }

  /** The caller's standing without counting a request (for answers given before the limit check). */
  peek(callerId: string, limit: number): RateDecision {
    const now = this.#now();
    return this.#decision(this.#current(callerId, now), limit, now);
  }

  /** Drops callers with no request in the window, so the map does not grow without bound. */
  sweep(): void {
    const cutoff = this.#now() - WINDOW_MS;
    for (const [callerId, hits] of this.#hits) {
      if ((hits.times.at(-1) ?? 0) <= cutoff) this.#hits.delete(callerId);
    }
  }

  /** The caller's hits with the expired ones skipped (and, now and then, dropped). */
  #current(callerId: string, now: number): Hits | undefined {
    const hits = this.#hits.get(callerId);
    if (!hits) return undefined;
    const cutoff = now - WINDOW_MS;
    while (hits.head < hits.times.length && hits.times[hits.head]! <= cutoff) hits.head += 1;
    if (hits.head > 1024 && hits.head * 2 > hits.times.length) {
      hits.times = hits.times.slice(hits.head);
      hits.head = 0;
    }
    return hits;
  }

  #decision(hits: Hits | undefined, limit: number, now: number): RateDecision {
    const count = hits ? hits.times.length - hits.head : 0;
    const oldest = hits?.times[hits.head] ?? now;
    return {
      allowed: count < limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)),
    };
  }
}

export function rateLimitHeaders(policy: string, decision: RateDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${decision.limit};w=${WINDOW_MS / 1000}`,
    RateLimit: `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/**
 * The 429 message: the limit, who it counts (a client IP or a key), what would lift it (a key of
 * the next tier, or a higher limit for an enterprise key), and when to retry.
 */
export function rateLimitMessage(tier: TierName, limit: number, retrySeconds: number): string {
  const counted = tier === 'free' ? 'per client IP, without an x-api-key' : 'for this x-api-key';
  const lift =
    tier === 'free'
      ? `an x-api-key of the pro tier allows ${tiers.pro.requestsPerMinute} (locally: API_KEYS=<key>:pro)`
      : tier === 'pro'
        ? `a key of the enterprise tier allows ${tiers.enterprise.requestsPerMinute} or more (locally: API_KEYS=<key>:enterprise)`
        : 'an enterprise key’s limit is set per key: ask for a higher one (locally: API_KEYS=<key>:enterprise:<requests per minute>)';
  return `Over ${limit} requests per minute ${counted} (${tier} tier); ${lift}. Retry in ${retrySeconds} s.`;
}
