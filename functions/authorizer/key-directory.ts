import type { ApiKeyRecord } from '#shared/auth/keys.ts';
import { isTierName, tiers } from '#shared/tiers.ts';

/** The fields of an API Gateway API key the directory reads (as GetApiKeys returns them). */
export interface GatewayApiKey {
  id?: string | undefined;
  name?: string | undefined;
  value?: string | undefined;
  enabled?: boolean | undefined;
  tags?: Record<string, string> | undefined;
}

/**
 * Tags that make an API Gateway key one of this deployment's: `deployment` names the stack,
 * `tier` the tier, and an enterprise key may carry its own `requestsPerMinute`. The free tier's
 * shared key (the usage identifier of anonymous calls) carries `role=free-shared`.
 */
export const keyTags = {
  deployment: 'deployment',
  tier: 'tier',
  requestsPerMinute: 'requestsPerMinute',
  role: 'role',
} as const;
export const freeSharedRole = 'free-shared';

/** Key names start with the deployment's name, so that GetApiKeys can filter by prefix. */
export const keyNamePrefix = (deployment: string) => `${deployment}-`;

export interface KeyDirectory {
  /** The record of an enabled key of this deployment, or undefined. */
  find(apiKey: string): Promise<ApiKeyRecord | undefined>;
  /** The value of the free tier's shared key. */
  freeTierKey(): Promise<string>;
}

export interface KeyDirectoryOptions {
  deployment: string;
  /** Every key whose name starts with the deployment's prefix, values included. */
  listKeys: () => Promise<GatewayApiKey[]>;
  /** How long a snapshot of the keys serves before it is read again. */
  ttlMs?: number;
  /** An unknown key re-reads the keys (a key issued a moment ago works at once), at most this often. */
  minRefreshMs?: number;
  now?: () => number;
}

interface Snapshot {
  readAt: number;
  paid: Map<string, ApiKeyRecord>;
  freeShared: string | undefined;
}

function recordOf(key: GatewayApiKey): ApiKeyRecord | undefined {
  const tier = key.tags?.[keyTags.tier];
  if (!isTierName(tier)) return undefined;
  const custom = key.tags?.[keyTags.requestsPerMinute];
  const requestsPerMinute =
    custom && /^[1-9]\d*$/.test(custom) ? Number(custom) : tiers[tier].requestsPerMinute;
  return { tier, requestsPerMinute };
}

/**
 * The keys of this deployment, read from API Gateway (which also holds the usage plans that
 * throttle them, so there is one place where a key exists or not). One snapshot per container,
 * read again after `ttlMs`: revoking a key takes effect within that time. The snapshot holds no
 * request data, only the key table.
 */
export function createKeyDirectory(options: KeyDirectoryOptions): KeyDirectory {
  const ttlMs = options.ttlMs ?? 60_000;
  const minRefreshMs = options.minRefreshMs ?? 10_000;
  const now = options.now ?? Date.now;
  let snapshot: Snapshot | undefined;
  let reading: Promise<Snapshot> | undefined;

  async function read(): Promise<Snapshot> {
    const paid = new Map<string, ApiKeyRecord>();
    let freeShared: string | undefined;
    for (const key of await options.listKeys()) {
      if (key.enabled !== true || !key.value) continue;
      if (key.tags?.[keyTags.deployment] !== options.deployment) continue;
      if (key.tags?.[keyTags.role] === freeSharedRole) {
        freeShared = key.value;
        continue;
      }
      const record = recordOf(key);
      if (record) paid.set(key.value, record);
    }
    return { readAt: now(), paid, freeShared };
  }

  /** One read at a time per container, however many requests wait for it. */
  function refresh(): Promise<Snapshot> {
    reading ??= read()
      .then((fresh) => {
        snapshot = fresh;
        return fresh;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  async function current(): Promise<Snapshot> {
    if (snapshot && now() - snapshot.readAt < ttlMs) return snapshot;
    return refresh();
  }

  return {
    async find(apiKey) {
      let keys = await current();
      if (!keys.paid.has(apiKey) && now() - keys.readAt >= minRefreshMs) keys = await refresh();
      return keys.paid.get(apiKey);
    },
    async freeTierKey() {
      let keys = await current();
      if (!keys.freeShared) keys = await refresh();
      if (!keys.freeShared) {
        throw new Error(
          `No enabled API key tagged ${keyTags.role}=${freeSharedRole} for ${options.deployment}`,
        );
      }
      return keys.freeShared;
    },
  };
}
