import { describe, expect, it } from 'vitest';
import { authorize, secretsMatch } from '#shared/auth/authorize.ts';
import { keyId, parseApiKeys } from '#shared/auth/keys.ts';
import { ApiError } from '#shared/errors.ts';

const keys = parseApiKeys('k-pro:pro, k-ent:enterprise:5000, k-ent2:enterprise');
const lookupKey = (key: string) => keys.get(key);
const request = (headers: Record<string, string>) => ({ headers, sourceIp: '198.51.100.4' });

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ApiError ? error.code : 'not an ApiError';
  }
  return 'no error';
};

describe('API_KEYS parsing', () => {
  it('reads tiers and custom enterprise rates', () => {
    expect(keys.get('k-pro')).toEqual({ tier: 'pro', requestsPerMinute: 100, callerId: keyId('k-pro') });
    expect(keys.get('k-ent')).toEqual({
      tier: 'enterprise',
      requestsPerMinute: 5000,
      callerId: keyId('k-ent'),
    });
    expect(keys.get('k-ent2')).toEqual({
      tier: 'enterprise',
      requestsPerMinute: 1000,
      callerId: keyId('k-ent2'),
    });
    expect(parseApiKeys('k-free:free').get('k-free')).toEqual({
      tier: 'free',
      requestsPerMinute: 10,
      callerId: keyId('k-free'),
    });
  });

  it.each(['k:gold', 'k:pro:50', 'k:enterprise:zero', ':pro', 'k:enterprise:5:6'])('refuses %s', (spec) => {
    expect(() => parseApiKeys(spec)).toThrow(/API_KEYS/);
  });
});

describe('authorize', () => {
  it('serves anonymous callers on the free tier, per IP', () => {
    expect(authorize(request({}), { lookupKey })).toMatchObject({
      tier: 'free',
      callerId: 'ip:198.51.100.4',
      keyed: false,
    });
  });

  it('maps a known key to its tier without exposing the key', () => {
    const caller = authorize(request({ 'x-api-key': 'k-ent' }), { lookupKey });
    expect(caller).toMatchObject({ tier: 'enterprise', requestsPerMinute: 5000, keyed: true });
    expect(caller.callerId).not.toContain('k-ent');
  });

  it('answers 401 invalid_api_key for an unknown key', () => {
    expect(codeOf(() => authorize(request({ 'x-api-key': 'nope' }), { lookupKey }))).toBe('invalid_api_key');
  });

  it('requires the proxy secret with a key, and refuses a wrong one without a key', () => {
    const settings = { lookupKey, proxySecret: 's3cret' };
    expect(codeOf(() => authorize(request({ 'x-api-key': 'k-pro' }), settings))).toBe('invalid_proxy_secret');
    expect(codeOf(() => authorize(request({ 'x-marketplace-proxy-secret': 'bad' }), settings))).toBe(
      'invalid_proxy_secret',
    );
    const ok = { 'x-api-key': 'k-pro', 'x-marketplace-proxy-secret': 's3cret' };
    expect(authorize(request(ok), settings).tier).toBe('pro');
    expect(authorize(request({}), settings).tier).toBe('free');
  });

  it('compares secrets of any length', () => {
    expect(secretsMatch('a', 'a')).toBe(true);
    expect(secretsMatch('a', 'a'.repeat(100))).toBe(false);
  });
});
