import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, SlidingWindowLimiter } from '../../../infra/local/rate-limit.ts';

describe('sliding 60 s window', () => {
  it('allows the limit, refuses the next, and frees a slot 60 s after the oldest hit', () => {
    let now = 0;
    const limiter = new SlidingWindowLimiter(() => now);
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.take('ip:a', 3).allowed).toBe(true);
      now += 10_000;
    }
    const refused = limiter.take('ip:a', 3);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 30 });
    expect(limiter.take('ip:b', 3).allowed).toBe(true);
    now = 60_001;
    expect(limiter.take('ip:a', 3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('forgets idle callers on sweep', () => {
    let now = 0;
    const limiter = new SlidingWindowLimiter(() => now);
    limiter.take('ip:a', 1);
    now = 61_000;
    limiter.sweep();
    expect(limiter.peek('ip:a', 1)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('formats the IETF draft headers', () => {
    const headers = rateLimitHeaders('pro', { allowed: true, limit: 100, remaining: 42, resetSeconds: 17 });
    expect(headers).toEqual({ 'RateLimit-Policy': '"pro";q=100;w=60', RateLimit: '"pro";r=42;t=17' });
  });
});
