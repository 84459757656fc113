import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { postJson } from '../support/gateway.ts';

/**
 * Answers the local gateway gives around the functions: preflights, unknown paths and methods,
 * HEAD, and a trailing slash. The gateway runs in this process, over real HTTP.
 */
const PRO = 'edges-pro-key';
const BIG = 'edges-big-key';
let gateway: Gateway;

beforeAll(async () => {
  const { startGateway } = await import('../../infra/local/gateway.ts');
  gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    apiKeys: `${PRO}:pro,${BIG}:enterprise:100000`,
  });
});
afterAll(() => gateway?.close());

/** Node's fetch refuses a body on HEAD answers anyway; a raw request shows what is really sent. */
function head(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; bytes: number }>(
    (resolve, reject) => {
      const sent = httpRequest(`${gateway.url}${path}`, { method: 'HEAD', headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes }),
        );
      });
      sent.on('error', reject);
      sent.end();
    },
  );
}

describe('rate-limit headers on answers that run no function', () => {
  it('OPTIONS carries RateLimit and RateLimit-Policy, of the key when it names one', async () => {
    const anonymous = await fetch(`${gateway.url}/slugify`, { method: 'OPTIONS' });
    expect(anonymous.status).toBe(204);
    expect(anonymous.headers.get('ratelimit-policy')).toBe('"free";q=10;w=60');
    expect(anonymous.headers.get('ratelimit')).toMatch(/^"free";r=\d+;t=\d+$/);
    const keyed = await fetch(`${gateway.url}/slugify`, { method: 'OPTIONS', headers: { 'x-api-key': PRO } });
    expect(keyed.headers.get('ratelimit-policy')).toBe('"pro";q=100;w=60');
  });

  it("404 and 405 to a keyed request show that key's counters, without spending one", async () => {
    const pro = { 'x-api-key': PRO };
    expect((await postJson(`${gateway.url}/slugify`, { text: 'a b' }, pro)).status).toBe(200);
    expect((await postJson(`${gateway.url}/slugify`, { text: 'c d' }, pro)).status).toBe(200);
    const missing = await fetch(`${gateway.url}/no-such-route`, { headers: pro });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit-policy')).toBe('"pro";q=100;w=60');
    expect(missing.headers.get('ratelimit')).toMatch(/^"pro";r=98;t=\d+$/);
    const wrongMethod = await fetch(`${gateway.url}/slugify`, { headers: pro });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('ratelimit')).toMatch(/^"pro";r=98;t=\d+$/);
    // A key the gateway does not know is answered as API Gateway answers an unknown path: 404,
    // before any authorizer, with the client IP's free-tier standing.
    const unknownKey = await fetch(`${gateway.url}/no-such-route`, { headers: { 'x-api-key': 'stolen' } });
    expect(unknownKey.status).toBe(404);
    expect(unknownKey.headers.get('ratelimit-policy')).toBe('"free";q=10;w=60');
  });
});

describe('HEAD', () => {
  const getRoutes = routes.filter((route) => route.method === 'GET');
  const pathOf = (path: string) => path.replace('{jobId}', 'no-such-job').replace('{asset}', 'no-such-asset');

  it.each(getRoutes.map((route) => [route.path]))(
    'HEAD %s answers as GET does, without a body',
    async (path) => {
      const headers = { 'x-api-key': BIG };
      const got = await fetch(`${gateway.url}${pathOf(path)}`, { headers });
      const body = Buffer.from(await got.arrayBuffer());
      const answer = await head(pathOf(path), headers);
      expect(answer.status).toBe(got.status);
      expect(answer.bytes).toBe(0);
      expect(answer.headers['content-type']).toBe(got.headers.get('content-type'));
      if (got.headers.get('content-length'))
        expect(answer.headers['content-length']).toBe(String(body.length));
      expect(answer.headers['x-request-id']).toBeTruthy();
    },
  );

  it('HEAD /status is 200, and a POST route names HEAD nowhere', async () => {
    expect((await head('/status')).status).toBe(200);
    const onPost = await head('/slugify');
    expect(onPost.status).toBe(405);
    expect(onPost.headers.allow).toBe('POST, OPTIONS');
    const wrongOnGet = await postJson(`${gateway.url}/status`, {});
    expect(wrongOnGet.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('a trailing slash', () => {
  it('/docs/ serves the docs page itself, as API Gateway routes it to /docs', async () => {
    const page = await fetch(`${gateway.url}/docs`);
    const slashed = await fetch(`${gateway.url}/docs/`);
    expect(slashed.status).toBe(200);
    expect(slashed.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await slashed.text()).toBe(await page.text());
  });
});

describe('a refusal to a request that is still sending its body', () => {
  it.each([
    ['404', 'POST /no-such-route'],
    ['405', 'PUT /slugify'],
  ])(
    '%s comes only after the last byte, so the caller never writes into a closed connection',
    async (_status, line) => {
      const url = new URL(gateway.url);
      const half = 'a'.repeat(1000);
      const answered = await new Promise<{ afterLastByte: boolean; text: string }>((resolve, reject) => {
        let sentAll = false;
        let text = '';
        let afterLastByte: boolean | undefined;
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(`${line} HTTP/1.1\r\nHost: x\r\nContent-Length: ${2 * half.length}\r\n\r\n${half}`);
          setTimeout(() => {
            sentAll = true;
            socket.end(half);
          }, 150);
        });
        socket.on('data', (chunk: Buffer) => {
          afterLastByte ??= sentAll;
          text += chunk.toString('latin1');
        });
        socket.on('close', () => resolve({ afterLastByte: afterLastByte ?? false, text }));
        socket.on('error', reject);
      });
      expect(answered.text).toMatch(new RegExp(`^HTTP/1.1 ${_status} `));
      expect(answered.afterLastByte).toBe(true);
    },
  );
});
