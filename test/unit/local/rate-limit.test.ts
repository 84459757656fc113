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

  it('keeps counting right for a high limit while old hits expire and are dropped', () => {
    let now = 0;
    const limiter = new SlidingWindowLimiter(() => now);
    for (let i = 0; i < 3000; i += 1) {
      limiter.take('key:a', 5000);
      now += 10; // 3000 hits over 30 s
    }
    expect(limiter.peek('key:a', 5000)).toMatchObject({ remaining: 2000, resetSeconds: 30 });
    now = 79_995; // the first 2000 hits (0–19.99 s) have left the window
    expect(limiter.take('key:a', 5000)).toMatchObject({ allowed: true, remaining: 3999, resetSeconds: 1 });
    now = 200_000;
    expect(limiter.take('key:a', 5000)).toMatchObject({ allowed: true, remaining: 4999, resetSeconds: 60 });
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
