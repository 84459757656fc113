import { describe, expect, it } from 'vitest';
import { rateLimitMessage } from '../../../infra/local/rate-limit.ts';

describe('the 429 message', () => {
  it('tells a caller without a key that a pro key lifts the limit', () => {
    expect(rateLimitMessage('free', 10, 12)).toBe(
      'Over 10 requests per minute per client IP, without an x-api-key (free tier); an x-api-key of the pro tier allows 100 (locally: API_KEYS=<key>:pro). Retry in 12 s.',
    );
  });

  it('tells a pro key that the enterprise tier lifts it, and an enterprise key that its limit is set per key', () => {
    expect(rateLimitMessage('pro', 100, 3)).toMatch(
      /for this x-api-key \(pro tier\); a key of the enterprise tier allows 1000/,
    );
    expect(rateLimitMessage('enterprise', 2500, 3)).toMatch(
      /set per key.*API_KEYS=<key>:enterprise:<requests per minute>/,
    );
  });
});
