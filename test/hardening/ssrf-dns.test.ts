import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson } from '../support/gateway.ts';

/**
 * Server-side request forgery through names, at the routes: the local gateway runs in this process
 * with SOURCE_ALLOW_PRIVATE=false, and the system resolver the download calls is replaced by a
 * test resolver, so host names can answer private addresses, or several addresses of which one is
 * private. Every route refuses them with 400 source_blocked_address, resolves the name once, never
 * names the address it found, and the loopback server those names point at never sees a request.
 * (Rebinding, where a later answer differs, is proven below the routes, in
 * test/integration/source-download.test.ts: at the routes it would need a public address to reach.)
 */

/** The test resolver's answers, by host name; any other name does not resolve. */
const dns = vi.hoisted(() => ({
  answers: new Map<string, LookupAddress[]>(),
  lookups: [] as string[],
}));

vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = async (hostname: string) => {
    dns.lookups.push(hostname);
    const found = dns.answers.get(hostname);
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return { ...real, lookup, default: { ...real, lookup } };
});

const KEY = 'ssrf-dns-key';
const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

/** [name, what it resolves to]; every answer holds at least one address that is not public. */
const names: Array<[string, LookupAddress[]]> = [
  ['private.ssrf.test', [v4('10.0.0.1')]],
  ['loopback.ssrf.test', [v4('127.0.0.1')]],
  ['mapped.ssrf.test', [v6('::ffff:127.0.0.1')]],
  ['ipv6-loopback.ssrf.test', [v6('::1')]],
  ['metadata.ssrf.test', [v4('169.254.169.254')]],
  ['public-then-loopback.ssrf.test', [v4('93.184.215.14'), v4('127.0.0.1')]],
  ['public-v6-then-unique-local.ssrf.test', [v6('2606:4700:4700::1111'), v6('fd00::1')]],
];

const target = new FixtureServer();
let hits = 0;
let gateway: Gateway;

beforeAll(async () => {
  for (const [name, addresses] of names) dns.answers.set(name, addresses);
  await target.start();
  target.route('/secret.png', (_request, response) => {
    hits += 1;
    response.writeHead(200, { 'Content-Type': 'image/png' }).end('not really');
  });
  // The configuration is read once, when its module loads: set it first, then load the gateway.
  vi.stubEnv('SOURCE_ALLOW_PRIVATE', 'false');
  const { config } = await import('#shared/config.ts');
  expect(config.SOURCE_ALLOW_PRIVATE).toBe(false);
  const { startGateway } = await import('../../infra/local/gateway.ts');
  gateway = await startGateway({ port: 0, host: '127.0.0.1', apiKeys: `${KEY}:enterprise:100000` });
});

afterAll(async () => {
  await gateway?.close();
  await target.stop();
  vi.unstubAllEnvs();
});

const bodies: Record<string, (url: string) => Record<string, unknown>> = {
  '/checksum': (url) => ({ sourceUrl: url, algorithm: 'sha256' }),
  '/image-convert': (url) => ({ sourceUrl: url, outputFormat: 'webp' }),
};

describe('SSRF through host names the resolver maps to private addresses', () => {
  for (const [path, body] of Object.entries(bodies)) {
    it(`${path} answers 400 source_blocked_address for each of them, resolving each name once`, async () => {
      const port = Number(new URL(target.url('/')).port);
      const failures: string[] = [];
      for (const [name, addresses] of names) {
        const before = dns.lookups.length;
        const response = await postJson(`${gateway.url}${path}`, body(`http://${name}:${port}/secret.png`), {
          'x-api-key': KEY,
        });
        const answer = (await response.json()) as { error?: string; message?: string };
        const shown = addresses.filter(({ address }) => answer.message?.includes(address));
        if (response.status !== 400 || answer.error !== 'source_blocked_address' || shown.length > 0) {
          failures.push(`${name}: ${response.status} ${JSON.stringify(answer)}`);
        }
        expect(dns.lookups.slice(before), name).toEqual([name]);
      }
      expect(failures).toEqual([]);
      expect(hits).toBe(0);
    });
  }

  it('downloads through the same resolver, so a name it does not know is unreachable, not blocked', async () => {
    const response = await postJson(
      `${gateway.url}/checksum`,
      { sourceUrl: 'http://unknown.ssrf.test/file', algorithm: 'sha256' },
      { 'x-api-key': KEY },
    );
    expect([response.status, ((await response.json()) as { error: string }).error]).toEqual([
      400,
      'source_unreachable',
    ]);
    expect(dns.lookups.at(-1)).toBe('unknown.ssrf.test');
  });
});
