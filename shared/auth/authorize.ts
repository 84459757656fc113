import { createHash, timingSafeEqual } from 'node:crypto';
import type { KeyLookup } from '#shared/auth/keys.ts';
import { ApiError } from '#shared/errors.ts';
import { type TierName, tiers } from '#shared/tiers.ts';

export interface AuthRequest {
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  sourceIp: string;
}

export interface AuthSettings {
  lookupKey: KeyLookup;
  /** Unset: no proxy secret is required. */
  proxySecret?: string | undefined;
}

/** Who is calling, as the authorizer hands it to every handler. */
export interface Caller {
  tier: TierName;
  /** Stable and not secret: a digest of the API key, or the client IP for anonymous calls. */
  callerId: string;
  requestsPerMinute: number;
  keyed: boolean;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares two secrets in constant time, whatever their lengths. */
export function secretsMatch(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The contract's proxy-secret rule: with a secret configured, a request that carries a key or a
 * secret must carry the right secret. Throws 403 `invalid_proxy_secret`. Exported so that a caller
 * whose key lookup costs something can check the secret before looking the key up.
 */
export function assertProxySecret(headers: AuthRequest['headers'], proxySecret: string | undefined): void {
  if (!proxySecret) return;
  const secret = headers['x-marketplace-proxy-secret'];
  const secretNeeded = headers['x-api-key'] !== undefined || secret !== undefined;
  if (secretNeeded && (secret === undefined || !secretsMatch(secret, proxySecret))) {
    throw new ApiError('invalid_proxy_secret', 'The x-marketplace-proxy-secret header is missing or wrong.');
  }
}

/** The contract's authentication rules 1–3. Throws the contract's 401/403 errors. */
export function authorize(request: AuthRequest, settings: AuthSettings): Caller {
  assertProxySecret(request.headers, settings.proxySecret);
  const apiKey = request.headers['x-api-key'];
  if (apiKey === undefined) {
    return {
      tier: 'free',
      callerId: `ip:${request.sourceIp}`,
      requestsPerMinute: tiers.free.requestsPerMinute,
      keyed: false,
    };
  }
  const record = settings.lookupKey(apiKey);
  if (!record) throw new ApiError('invalid_api_key', 'The x-api-key is unknown or revoked.');
  return {
    tier: record.tier,
    callerId: record.callerId,
    requestsPerMinute: record.requestsPerMinute,
    keyed: true,
  };
}
