import { createHash } from 'node:crypto';
import { isTierName, type TierName, tiers } from '#shared/tiers.ts';

export interface ApiKeyRecord {
  tier: TierName;
  requestsPerMinute: number;
  /** The caller id of the key (`keyId`), worked out once when the record is made. */
  callerId: string;
}

/** A keyed caller's id: stable and not secret, a digest of the API key. */
export const keyId = (apiKey: string) =>
  `key:${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}`;

export type KeyLookup = (apiKey: string) => ApiKeyRecord | undefined;

/**
 * Parses `API_KEYS`: comma-separated `key:tier` or `key:enterprise:<requests per minute>`.
 * Throws on a malformed entry so that a typo fails at start, not on a customer's request.
 */
export function parseApiKeys(spec: string | undefined): Map<string, ApiKeyRecord> {
  const keys = new Map<string, ApiKeyRecord>();
  for (const entry of (spec ?? '').split(',').map((part) => part.trim())) {
    if (!entry) continue;
    const [key, tier, rpm, ...rest] = entry.split(':');
    if (!key || !isTierName(tier) || rest.length > 0) {
      throw new Error(
        `API_KEYS entry "${entry.slice(0, 4)}…" must be key:<free|pro|enterprise> or key:enterprise:<rpm>`,
      );
    }
    if (rpm !== undefined && (tier !== 'enterprise' || !/^[1-9]\d*$/.test(rpm))) {
      throw new Error(`API_KEYS entry for tier ${tier} has an invalid requests-per-minute value`);
    }
    keys.set(key, {
      tier,
      requestsPerMinute: rpm ? Number(rpm) : tiers[tier].requestsPerMinute,
      callerId: keyId(key),
    });
  }
  return keys;
}
