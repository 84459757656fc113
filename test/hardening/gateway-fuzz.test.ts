import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { type RunningGateway, startLocalGateway } from '../support/gateway.ts';
import type { Answer } from '../support/lambda.ts';
import { bodyWithSource, contractBreach, fuzzSeed, workspacesIn } from './support.ts';

/**
 * Arbitrary HTTP requests to the local gateway (`npm start` in its own process): any method, paths
 * built from the route table and bent (broken %-escapes, dot segments, doubled slashes, case),
 * arbitrary headers and bodies. The gateway and the handlers behind it answer 2xx, 204 or a clean
 * 4xx with a request id, never a 5xx. Private sources are forbidden here, so no body can make the
 * service fetch anything: every URL field is a loopback or otherwise refused address.
 */

const KEY = 'fuzz-key';
const REQUEST_MS = 15_000;

let gateway: RunningGateway;
let gatewayTmp = '';

beforeAll(async () => {
  gatewayTmp = await mkdtemp(join(tmpdir(), 'hardening-gateway-'));
  gateway = await startLocalGateway({
    SOURCE_ALLOW_PRIVATE: 'false',
    API_KEYS: `${KEY}:enterprise:1000000,free-key:free`,
    TMPDIR: gatewayTmp,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await rm(gatewayTmp, { recursive: true, force: true });
});

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Sends exactly what it is given (fetch would normalise the path and refuse some methods). */
function send(raw: RawRequest): Promise<Answer> {
  const base = new URL(gateway.url);
  // Node frames a GET or DELETE body only when told its length; an unframed one would be read as the next request.
  const framing = raw.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(raw.body)) };
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        agent: false,
        host: base.hostname,
        port: base.port,
        method: raw.method,
        path: raw.path,
        headers: { ...raw.headers, ...framing },
        timeout: REQUEST_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            statusCode: response.statusCode ?? 0,
            headers: response.headers as Record<string, string | string[]>,
            body,
            json: () => JSON.parse(body.toString('utf8')),
          });
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_MS} ms`)));
    request.on('error', reject);
    request.end(raw.body);
  });
}

const fillParameters = (path: string, value: string) => path.replace(/\{\w+\}/g, value);

const segment = fc.oneof(
  fc.constantFrom(
    '%ZZ',
    '%E0%A4%A',
    '%',
    '..',
    '%2e%2e',
    '..%2F..%2Fpackage.json',
    '%00',
    'a'.repeat(3000),
    '__proto__',
  ),
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,30}$/),
);

const path = fc.oneof(
  fc
    .tuple(fc.constantFrom(...routes.map((route) => route.path)), segment)
    .map(([route, value]) => fillParameters(route, value)),
  fc
    .tuple(
      fc.constantFrom(...routes.map((route) => route.path)),
      segment,
      fc.constantFrom('/', '/x', '?', '?a=%ZZ', '#f', '%2f', '/..', ''),
    )
    .map(([route, value, suffix]) => `${fillParameters(route, value)}${suffix}`),
  fc.constantFrom(...routes.map((route) => route.path)).map((route) => route.toUpperCase()),
  fc.constantFrom(
    '/',
    '//slugify',
    '/%ZZ',
    '/./slugify',
    '/slugify/../slugify',
    '/jobs/',
    '/docs/',
    `/${'x'.repeat(8000)}`,
  ),
  segment.map((value) => `/${value}`),
);

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'OPTIONS') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'HEAD', 'TRACE', 'BREW', 'PROPFIND', 'post'),
  },
);

/** Header values HTTP allows: visible ASCII and spaces, no line breaks. */
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,80}$/);

const headers = fc
  .record(
    {
      'x-api-key': fc.oneof(fc.constant(KEY), fc.constant('free-key'), headerValue),
      'x-marketplace-proxy-secret': headerValue,
      'content-type': fc.oneof(
        fc.constant('application/json'),
        fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'multipart/form-data', ''),
        headerValue,
      ),
      'x-forwarded-for': fc.constantFrom('127.0.0.1', '::1', '10.0.0.1, 203.0.113.5', 'garbage'),
      origin: fc.constantFrom('https://example.org', 'null'),
      'accept-encoding': fc.constantFrom('gzip, br', 'identity', '*'),
    },
    { requiredKeys: [] },
  )
  .chain((known) =>
    fc
      .dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue, { maxKeys: 3 })
      .map((extra) => ({ ...extra, ...known })),
  );

/** A body for whatever route the path names, near-valid or junk; URL fields only ever point inward. */
const body = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...routes.filter((route) => route.method === 'POST')),
      fc.constantFrom('http://127.0.0.1:9/x', 'file:///etc/passwd', 'not a url'),
    )
    .map(([route, url]) => JSON.stringify(bodyWithSource(route, url))),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.constantFrom('{', '', 'null', '{"text":"a","__proto__":{"x":1}}', `{"text":"${'a'.repeat(1_100_000)}"}`),
  fc.string({ maxLength: 200 }),
);

describe('arbitrary HTTP requests to the local gateway', () => {
  it('answer 2xx, 204 or a clean 4xx with a request id, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ method, path, headers, body: fc.option(body) }), async (input) => {
        const raw: RawRequest = {
          method: input.method,
          path: input.path,
          headers: input.headers,
          body: input.body ?? undefined,
        };
        const answer = await send(raw);
        const what = `${raw.method} ${raw.path.slice(0, 120)} ${JSON.stringify(raw.headers)} ${(raw.body ?? '').slice(0, 200)}`;
        expect(answer.headers['x-request-id'], what).toBeTruthy();
        if (raw.method === 'HEAD') {
          expect(answer.statusCode, what).toBeLessThan(500);
          return;
        }
        const breach = contractBreach(answer);
        if (breach) throw new Error(`${breach}\n  for ${what}`);
      }),
      { numRuns: 200, endOnFailure: true, seed: fuzzSeed },
    );
    expect(await workspacesIn(gatewayTmp)).toEqual([]);
  }, 300_000);

  it.each([
    ['/jobs/%ZZ', 'GET'],
    ['/docs/%E0%A4%A', 'GET'],
  ])('answers 404 for a path parameter with a broken percent-escape: %s', async (brokenPath, verb) => {
    const answer = await send({
      method: verb,
      path: brokenPath,
      headers: { 'x-api-key': KEY },
      body: undefined,
    });
    expect(contractBreach(answer)).toBeUndefined();
    expect([answer.statusCode, (answer.json() as { error: string }).error]).toEqual([404, 'not_found']);
  });

  it.each([
    ['an unknown method', 'BREW /slugify HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'method_not_allowed'],
    [
      'a header without a colon',
      'POST /slugify HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n',
      400,
      'invalid_input',
    ],
    [
      'a request line with spaces in the path',
      'GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n',
      400,
      'invalid_input',
    ],
    [
      '16 kB of one header',
      `GET /status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      413,
      'request_too_large',
    ],
  ])(
    'answers %s that Node refuses itself with the JSON error and a request id',
    async (_what, text, status, code) => {
      const base = new URL(gateway.url);
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(base.port), base.hostname, () => socket.end(text));
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
      });
      const [head = '', body = ''] = reply.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}/i);
      expect(JSON.parse(body)).toEqual({ error: code, message: expect.any(String) });
    },
  );
});
