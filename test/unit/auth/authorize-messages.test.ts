import { describe, expect, it } from 'vitest';
import { authorize } from '#shared/auth/authorize.ts';
import { parseApiKeys } from '#shared/auth/keys.ts';

/** What a refused caller reads: the contract's codes, with messages that say what to fix. */
const keys = parseApiKeys('k-pro:pro');
const lookupKey = (key: string) => keys.get(key);
const refusal = (headers: Record<string, string>, proxySecret?: string) => {
  try {
    authorize({ headers, sourceIp: '198.51.100.4' }, { lookupKey, proxySecret });
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('authorize refusals', () => {
  it('an unknown key: invalid_api_key, "unknown or revoked"', () => {
    expect(refusal({ 'x-api-key': 'nope' })).toMatchObject({
      code: 'invalid_api_key',
      message: 'The x-api-key is unknown or revoked.',
    });
  });

  it('a missing or wrong proxy secret: invalid_proxy_secret, naming the header', () => {
    const expected = {
      code: 'invalid_proxy_secret',
      message: 'The x-marketplace-proxy-secret header is missing or wrong.',
    };
    expect(refusal({ 'x-api-key': 'k-pro' }, 's3cret')).toMatchObject(expected);
    expect(refusal({ 'x-marketplace-proxy-secret': 'bad' }, 's3cret')).toMatchObject(expected);
  });
});
