import { type ApiKeyRecord, keyId } from '#shared/auth/keys.ts';
import { log } from '#shared/log.ts';
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
  /**
   * An unknown key re-reads the keys (a key issued a moment ago works at once), at most this often;
   * after a failed read, the next read waits as long.
   */
  minRefreshMs?: number;
  /**
   * How old the last good snapshot may grow while reads fail before keyed calls fail too: the
   * longest a revoked key keeps working when GetApiKeys is down.
   */
  maxStaleMs?: number;
  now?: () => number;
}

interface Snapshot {
  readAt: number;
  paid: Map<string, ApiKeyRecord>;
  freeShared: string | undefined;
}

function recordOf(key: GatewayApiKey, value: string): ApiKeyRecord | undefined {
  const tier = key.tags?.[keyTags.tier];
  if (!isTierName(tier)) return undefined;
  const custom = key.tags?.[keyTags.requestsPerMinute];
  const requestsPerMinute =
    custom && /^[1-9]\d*$/.test(custom) ? Number(custom) : tiers[tier].requestsPerMinute;
  return { tier, requestsPerMinute, callerId: keyId(value) };
}

/**
 * The keys of this deployment, read from API Gateway (which also holds the usage plans that
 * throttle them, so there is one place where a key exists or not). One snapshot per container,
 * read again after `ttlMs`: revoking a key takes effect within that time. The snapshot holds no
 * request data, only the key table.
 *
 * A failed read (GetApiKeys throttled, say) does not fail the calls: the last good snapshot keeps
 * serving keyed calls for up to `maxStaleMs` after it was read, and anonymous calls, which need
 * only the free tier's shared key, for as long as the container lives. Reads are retried at most
 * every `minRefreshMs`, so a struggling API is not asked again by every request.
 */
export function createKeyDirectory(options: KeyDirectoryOptions): KeyDirectory {
  const ttlMs = options.ttlMs ?? 60_000;
  const minRefreshMs = options.minRefreshMs ?? 10_000;
  const maxStaleMs = options.maxStaleMs ?? 15 * 60_000;
  const now = options.now ?? Date.now;
  let snapshot: Snapshot | undefined;
  let reading: Promise<Snapshot> | undefined;
  let lastFailure: { at: number; error: unknown } | undefined;

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
      const record = recordOf(key, key.value);
      if (record) paid.set(key.value, record);
    }
    return { readAt: now(), paid, freeShared };
  }

  /** One read at a time per container, however many requests wait for it. */
  function refresh(): Promise<Snapshot> {
    reading ??= read()
      .then((fresh) => {
        snapshot = fresh;
        lastFailure = undefined;
        return fresh;
      })
      .catch((error: unknown) => {
        lastFailure = { at: now(), error };
        log('error', 'API key listing failed', {
          snapshotAgeMs: snapshot ? now() - snapshot.readAt : null,
          cause: error instanceof Error ? error.message : String(error),
        });
        throw error;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  /** A fresh read, or the last good snapshot while reads fail and it is not too old. */
  async function refreshOrKeep(): Promise<Snapshot> {
    const usable = snapshot && now() - snapshot.readAt < maxStaleMs ? snapshot : undefined;
    try {
      // A read that failed a moment ago is not tried again yet: its failure stands. (A container
      // that never read the keys has nothing to fall back on, so each of its calls tries.)
      if (snapshot && lastFailure && now() - lastFailure.at < minRefreshMs) throw lastFailure.error;
      return await refresh();
    } catch (error) {
      if (!usable) throw error;
      return usable;
    }
  }

  async function current(): Promise<Snapshot> {
    if (snapshot && now() - snapshot.readAt < ttlMs) return snapshot;
    return refreshOrKeep();
  }

  return {
    async find(apiKey) {
      let keys = await current();
      if (!keys.paid.has(apiKey) && now() - keys.readAt >= minRefreshMs) keys = await refreshOrKeep();
      return keys.paid.get(apiKey);
    },
    async freeTierKey() {
      let keys: Snapshot;
      try {
        keys = await current();
        if (!keys.freeShared) keys = await refresh();
      } catch (error) {
        // The shared key only meters anonymous calls; an old one beats refusing the whole free tier.
        if (!snapshot?.freeShared) throw error;
        return snapshot.freeShared;
      }
      if (!keys.freeShared) {
        throw new Error(
          `No enabled API key tagged ${keyTags.role}=${freeSharedRole} for ${options.deployment}`,
        );
      }
      return keys.freeShared;
    },
  };
}
