const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window. */
  resetSeconds: number;
}

/**
 * A sliding 60 s window per caller (client IP for anonymous calls, the key otherwise), as the
 * contract states. API Gateway usage plans and the WAF rule enforce the same limits in AWS.
 */
export class SlidingWindowLimiter {
  readonly #hits = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Counts a request if the caller is under the limit. */
  take(callerId: string, limit: number): RateDecision {
    const standing = this.peek(callerId, limit);
    if (!standing.allowed) return standing;
    const now = this.#now();
    const hits = (this.#hits.get(callerId) ?? []).filter((at) => at > now - WINDOW_MS);
    hits.push(now);
    this.#hits.set(callerId, hits);
    return { ...this.peek(callerId, limit), allowed: true };
  }

  /** The caller's standing without counting a request (for answers given before the limit check). */
  peek(callerId: string, limit: number): RateDecision {
    const now = this.#now();
    const hits = (this.#hits.get(callerId) ?? []).filter((at) => at > now - WINDOW_MS);
    const oldest = hits[0] ?? now;
    return {
      allowed: hits.length < limit,
      limit,
      remaining: Math.max(0, limit - hits.length),
      resetSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)),
    };
  }

  /** Drops callers with no request in the window, so the map does not grow without bound. */
  sweep(): void {
    const cutoff = this.#now() - WINDOW_MS;
    for (const [callerId, hits] of this.#hits) {
      if ((hits.at(-1) ?? 0) <= cutoff) this.#hits.delete(callerId);
    }
  }
}

export function rateLimitHeaders(policy: string, decision: RateDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${decision.limit};w=${WINDOW_MS / 1000}`,
    RateLimit: `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}
