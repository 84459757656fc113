import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { callerFromEvent, callerToContext } from '#shared/auth/caller.ts';
import { keyId, parseApiKeys } from '#shared/auth/keys.ts';

/**
 * The caller as it travels from the authorizer to a function (API Gateway turns every context
 * value into a string), and the exact wording of API_KEYS refusals, which `npm start` prints.
 */
const eventWith = (authorizer: unknown, sourceIp?: string) =>
  ({
    requestContext: { authorizer, identity: sourceIp === undefined ? undefined : { sourceIp } },
  }) as unknown as Pick<APIGatewayProxyEvent, 'requestContext'>;

describe('callerFromEvent', () => {
  it('reads back what callerToContext handed on, as strings too', () => {
    const caller = { tier: 'pro' as const, callerId: 'key:abc', requestsPerMinute: 100, keyed: true };
    expect(callerFromEvent(eventWith(callerToContext(caller), '198.51.100.4'))).toEqual(caller);
    expect(
      callerFromEvent(
        eventWith({ tier: 'enterprise', callerId: 'key:def', requestsPerMinute: '5000', keyed: 'true' }),
      ),
    ).toEqual({ tier: 'enterprise', callerId: 'key:def', requestsPerMinute: 5000, keyed: true });
  });

  it('without an authorizer: the free tier, per client IP, unkeyed', () => {
    expect(callerFromEvent(eventWith(undefined, '198.51.100.4'))).toEqual({
      tier: 'free',
      callerId: 'ip:198.51.100.4',
      requestsPerMinute: 10,
      keyed: false,
    });
    expect(callerFromEvent(eventWith(undefined)).callerId).toBe('ip:unknown');
  });

  it('an unknown tier, a missing rate or a keyed flag that is not true fall back to the safe side', () => {
    expect(
      callerFromEvent(eventWith({ tier: 'gold', requestsPerMinute: 'lots', keyed: 'yes' }, '203.0.113.9')),
    ).toEqual({ tier: 'free', callerId: 'ip:203.0.113.9', requestsPerMinute: 10, keyed: false });
    expect(callerFromEvent(eventWith({ tier: 'pro', keyed: false })).requestsPerMinute).toBe(100);
  });
});

describe('keyId', () => {
  it('is "key:" and the first 32 hex digits of the key’s SHA-256', () => {
    const digest = createHash('sha256').update('k-pro').digest('hex');
    expect(keyId('k-pro')).toBe(`key:${digest.slice(0, 32)}`);
  });
});

describe('API_KEYS refusals', () => {
  it('show only the first four characters of a malformed entry', () => {
    expect(() => parseApiKeys('secretkey:gold')).toThrow(
      'API_KEYS entry "secr…" must be key:<free|pro|enterprise> or key:enterprise:<rpm>',
    );
  });

  it('name the tier of an entry whose rate is not allowed or not a positive integer', () => {
    expect(() => parseApiKeys('k:pro:50')).toThrow(
      'API_KEYS entry for tier pro has an invalid requests-per-minute value',
    );
    expect(() => parseApiKeys('k:enterprise:050')).toThrow(/tier enterprise/);
    expect(() => parseApiKeys('k:enterprise:50x')).toThrow(/tier enterprise/);
  });

  it('skip empty entries and spaces around entries', () => {
    expect([...parseApiKeys(' a:pro , ,b:free ').keys()]).toEqual(['a', 'b']);
    expect(parseApiKeys(undefined).size).toBe(0);
  });
});
