import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '#shared/routes.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';
import { apiEvent } from '../support/lambda.ts';
import {
  bodyWithSource,
  callWithin,
  contractBreach,
  downloadingRoutes,
  errorCodeOf,
  fieldsOf,
  handlerOf,
  PrivateTmp,
  workspacesIn,
} from './support.ts';

/**
 * Server-side request forgery, end to end: the local gateway runs in its own process with
 * SOURCE_ALLOW_PRIVATE=false (as in production), and every route that downloads is asked to fetch
 * a loopback server under every spelling of a private address, through scheme and user-info tricks.
 * Each is refused with a 400, and the loopback server never sees a single request.
 *
 * This gateway runs in its own process with the system resolver, so names here are only those the
 * hosts file answers; everything else is an address literal, decided without any lookup. Names that
 * resolve to private addresses, one or several, go through an in-process gateway with a test
 * resolver in ssrf-dns.test.ts.
 */

const KEY = 'ssrf-key';
const headers = { 'x-api-key': KEY };
const blocked = ['source_blocked_address'];
const invalid = ['source_invalid_url'];
const refusedEitherWay = ['source_blocked_address', 'source_invalid_url', 'validation_failed'];

const target = new FixtureServer();
const hits: string[] = [];
let gateway: RunningGateway;
let gatewayTmp = '';

beforeAll(async () => {
  await target.start();
  target.route('/secret', (request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end('secret');
  });
  gatewayTmp = await mkdtemp(join(tmpdir(), 'hardening-ssrf-'));
  gateway = await startLocalGateway({
    SOURCE_ALLOW_PRIVATE: 'false',
    API_KEYS: `${KEY}:enterprise:100000`,
    TMPDIR: gatewayTmp,
  });
});

// Checked once every test of the file has run, in whatever order they ran: none left a workspace.
afterAll(async () => {
  try {
    expect(await workspacesIn(gatewayTmp)).toEqual([]);
  } finally {
    await gateway?.stop();
    await target.stop();
    await rm(gatewayTmp, { recursive: true, force: true });
  }
});

/** [spelling, URL, codes that may answer]. Every URL reaches the loopback target if it were fetched. */
function spellings(port: number): Array<[string, string, readonly string[]]> {
  const path = '/secret';
  return [
    ['loopback', `http://127.0.0.1:${port}${path}`, blocked],
    ['localhost', `http://localhost:${port}${path}`, blocked],
    ['LOCALHOST in capitals', `http://LOCALHOST:${port}${path}`, blocked],
    ['loopback with a trailing dot', `http://127.0.0.1.:${port}${path}`, blocked],
    ['decimal', `http://2130706433:${port}${path}`, blocked],
    ['hexadecimal', `http://0x7f000001:${port}${path}`, blocked],
    ['octal', `http://0177.0.0.1:${port}${path}`, blocked],
    ['short form', `http://127.1:${port}${path}`, blocked],
    ['full-width digits and dots', `http://１２７。０。０。１:${port}${path}`, blocked],
    ['unspecified 0', `http://0:${port}${path}`, blocked],
    ['unspecified 0.0.0.0', `http://0.0.0.0:${port}${path}`, blocked],
    ['IPv6 loopback', `http://[::1]:${port}${path}`, blocked],
    ['IPv6 unspecified', `http://[::]:${port}${path}`, blocked],
    ['IPv4-mapped IPv6', `http://[::ffff:127.0.0.1]:${port}${path}`, blocked],
    ['IPv4-mapped IPv6 in hex', `http://[::ffff:7f00:1]:${port}${path}`, blocked],
    ['IPv4-compatible IPv6', `http://[::127.0.0.1]:${port}${path}`, blocked],
    ['NAT64 of loopback', `http://[64:ff9b::127.0.0.1]:${port}${path}`, blocked],
    ['6to4 of loopback', `http://[2002:7f00:1::]:${port}${path}`, blocked],
    ['link-local IPv6 with a zone', `http://[fe80::1%25lo]:${port}${path}`, refusedEitherWay],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/', blocked],
    ['cloud metadata over IPv6', 'http://[fd00:ec2::254]/latest/meta-data/', blocked],
    ['private 10/8', 'http://10.0.0.1/', blocked],
    ['private 172.16/12', 'http://172.16.0.1/', blocked],
    ['private 192.168/16', 'http://192.168.0.1/', blocked],
    ['CGNAT', 'http://100.64.0.1/', blocked],
    ['benchmarking', 'http://198.18.0.1/', blocked],
    ['multicast', 'http://224.0.0.1/', blocked],
    ['broadcast', 'http://255.255.255.255/', blocked],
    ['unique-local IPv6', 'http://[fd12:3456::1]/', blocked],
    ['upper-case scheme', `HTTP://127.0.0.1:${port}${path}`, blocked],
    ['scheme without slashes', `http:127.0.0.1:${port}${path}`, blocked],
    ['backslashes', `http:\\\\127.0.0.1:${port}\\secret`, blocked],
    ['leading tab', `\thttp://127.0.0.1:${port}${path}`, refusedEitherWay],
    ['file:', 'file:///etc/hostname', invalid],
    ['file: on localhost', 'file://localhost/etc/passwd', invalid],
    ['gopher:', `gopher://127.0.0.1:${port}/_GET%20/secret`, invalid],
    ['data:', 'data:text/plain;base64,c2VjcmV0', invalid],
    ['ftp:', `ftp://127.0.0.1:${port}/secret`, invalid],
    ['javascript:', 'javascript:alert(1)', invalid],
    ['scheme-relative', `//127.0.0.1:${port}${path}`, invalid],
    ['user info before loopback', `http://public@127.0.0.1:${port}${path}`, invalid],
    ['user and password before loopback', `http://user:pass@127.0.0.1:${port}${path}`, invalid],
    ['a public-looking host as user info', `http://example.com@127.0.0.1:${port}${path}`, invalid],
    ['a fragment that looks like a host', `http://127.0.0.1:${port}${path}#@203.0.113.9/`, blocked],
    ['a backslash before @', `http://203.0.113.9\\@127.0.0.1:${port}${path}`, blocked],
    ['an encoded @ in the host', `http://example.com%40127.0.0.1:${port}${path}`, refusedEitherWay],
  ];
}

/**
 * Routes to try through the gateway: /checksum, the first file route of each area (image, PDF,
 * media) and the first route that takes a list of `sources`, all read from the table.
 */
function routesUnderTest(): RouteSpec[] {
  const candidates = downloadingRoutes();
  const chosen = new Set<RouteSpec>(candidates.filter((route) => route.path === '/checksum'));
  for (const tag of new Set(candidates.map((route) => route.tag))) {
    const first = candidates.find((route) => route.tag === tag && route.kind === 'file');
    if (first) chosen.add(first);
  }
  const withSources = candidates.find((route) => fieldsOf(route).includes('sources'));
  if (withSources) chosen.add(withSources);
  return [...chosen];
}

describe('SSRF through the local gateway with private addresses forbidden', () => {
  it('tries at least one file route and /checksum', () => {
    expect(routesUnderTest().some((route) => route.kind === 'file')).toBe(true);
    expect(routesUnderTest().map((route) => route.path)).toContain('/checksum');
  });

  for (const route of routesUnderTest()) {
    it(`${route.path} refuses every private spelling, scheme and user-info trick`, async () => {
      const port = Number(new URL(target.url('/')).port);
      const failures: string[] = [];
      for (const [spelling, url, codes] of spellings(port)) {
        const response = await postJson(`${gateway.url}${route.path}`, bodyWithSource(route, url), headers);
        const text = await response.text();
        const code = (() => {
          try {
            return (JSON.parse(text) as { error?: string }).error;
          } catch {
            return undefined;
          }
        })();
        if (response.status !== 400 || !codes.includes(code ?? '')) {
          failures.push(`${spelling} (${url}): ${response.status} ${text.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
      expect(hits).toEqual([]);
    });
  }

  it('refuses async-job callbacks to private addresses before anything is stored or sent', async () => {
    const route = routesUnderTest().find((candidate) => candidate.kind === 'file');
    expect(route).toBeDefined();
    const port = Number(new URL(target.url('/')).port);
    const source = 'https://203.0.113.10/file';
    const cases: Array<[string, readonly string[]]> = [
      [`http://127.0.0.1:${port}/secret`, refusedEitherWay],
      [`https://127.0.0.1:${port}/secret`, blocked],
      [`https://localhost:${port}/secret`, blocked],
      [`https://[::ffff:127.0.0.1]:${port}/secret`, blocked],
      ['https://169.254.169.254/latest/meta-data/', blocked],
      [`https://user@127.0.0.1:${port}/secret`, invalid],
      ['file:///etc/passwd', invalid],
    ];
    for (const [callbackUrl, codes] of cases) {
      const body = { ...bodyWithSource(route!, source), callbackUrl };
      const response = await postJson(`${gateway.url}${route!.path}`, body, headers);
      const answer = (await response.json()) as { error: string };
      expect([response.status, codes.includes(answer.error)], `${callbackUrl}: ${answer.error}`).toEqual([
        400,
        true,
      ]);
    }
    expect(hits).toEqual([]);
  });
});

describe('redirects are never followed, whatever they point at', () => {
  const tmp = new PrivateTmp();
  const server = new FixtureServer();
  let secretHits = 0;

  beforeAll(async () => {
    await tmp.open();
    await server.start();
    server.route('/secret', (_request, response) => {
      secretHits += 1;
      response.writeHead(200).end('secret');
    });
  });
  afterAll(async () => {
    await server.stop();
    await tmp.close();
  });

  const locations = (secret: string) => [
    secret,
    'http://169.254.169.254/latest/meta-data/iam/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
  ];

  // In-process, where loopback sources are allowed (the test configuration): a redirect must still
  // be refused before its target is contacted, so a public host cannot bounce a request inward.
  // Every route downloads through the one source module: the first route of each family meets
  // every redirect status with every kind of target, the others a 302 to the secret.
  const families = new Set<string>();
  for (const route of downloadingRoutes()) {
    const whole = !families.has(route.tag);
    families.add(route.tag);
    const statuses = whole ? [301, 302, 303, 307, 308] : [302];
    it(`${route.path} answers 400 source_redirect for ${statuses.join(', ')}`, async () => {
      const handler = await handlerOf(route);
      for (const [index, status] of statuses.entries()) {
        for (const location of whole ? locations(server.url('/secret')) : [server.url('/secret')]) {
          const hop = server.route(`/hop-${status}-${index}`, (_request, response) => {
            response.writeHead(status, { Location: location }).end();
          });
          const answer = await callWithin(
            handler,
            apiEvent(bodyWithSource(route, hop)),
            15_000,
            `${route.path} ${hop}`,
          );
          expect(contractBreach(answer)).toBeUndefined();
          expect([answer.statusCode, errorCodeOf(answer)]).toEqual([400, 'source_redirect']);
        }
      }
      expect(secretHits).toBe(0);
      expect(await tmp.leftovers()).toEqual([]);
    });
  }
});
