import { createHash, createHmac, randomBytes } from 'node:crypto';
import { hasRoute, jsonOf, type Scenario, wrong } from './scenario.ts';

/** Text and crypto routes, each answer computed here from its own unique input. */
export function textScenarios(): Scenario[] {
  const unique = (n: number) => `${n}-${randomBytes(6).toString('hex')}`;
  const algorithms = ['md5', 'sha1', 'sha256', 'sha512', 'sha3-256'] as const;
  const scenarios: Scenario[] = [
    {
      route: '/hash',
      weight: 6,
      run: async (n, send) => {
        const text = `load ${unique(n)} ✓`;
        const algorithm = algorithms[n % algorithms.length]!;
        const answer = await send('/hash', { text, algorithm });
        const expected = createHash(algorithm).update(text, 'utf8').digest('hex');
        return jsonOf(answer).hash === expected ? undefined : wrong(`/hash of "${text}"`, answer);
      },
    },
    {
      route: '/slugify',
      weight: 5,
      run: async (n, send) => {
        const id = unique(n);
        const answer = await send('/slugify', { text: `Lóad Ünïcode ${id}!` });
        return jsonOf(answer).slug === `load-unicode-${id}` ? undefined : wrong(`/slugify of ${id}`, answer);
      },
    },
    {
      route: '/encode',
      weight: 4,
      run: async (n, send) => {
        const text = `encode ${unique(n)} ü`;
        const answer = await send('/encode', { text, encoding: 'base64' });
        const expected = Buffer.from(text, 'utf8').toString('base64');
        return jsonOf(answer).result === expected ? undefined : wrong(`/encode of "${text}"`, answer);
      },
    },
    {
      route: '/hmac',
      weight: 4,
      run: async (n, send) => {
        const text = `hmac ${unique(n)}`;
        const key = `key-${n}`;
        const answer = await send('/hmac', { text, key, algorithm: 'sha256' });
        const expected = createHmac('sha256', key).update(text).digest('hex');
        return jsonOf(answer).hmac === expected ? undefined : wrong(`/hmac of "${text}"`, answer);
      },
    },
    {
      route: '/uuid',
      weight: 2,
      run: async (n, send) => {
        const count = 1 + (n % 20);
        const answer = await send('/uuid', { count, version: 4 });
        const uuids = jsonOf(answer).uuids;
        const ok =
          Array.isArray(uuids) &&
          uuids.length === count &&
          uuids.every((uuid) =>
            /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(String(uuid)),
          );
        return ok ? undefined : wrong(`/uuid count ${count}`, answer);
      },
    },
  ];
  return scenarios.filter((scenario) => hasRoute(scenario.route));
}
