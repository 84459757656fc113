import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';

describe('the local gateway (npm start) over real HTTP', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startLocalGateway({
      API_KEYS: 'pro-key:pro,big-key:enterprise:3',
      MARKETPLACE_PROXY_SECRET: 'proxy-secret',
    });
  });
  afterAll(() => gateway.stop());

  it('runs a handler and answers with request id, CORS and rate-limit headers', async () => {
    const response = await postJson(
      `${gateway.url}/slugify`,
      { text: 'Héllo Wörld!' },
      { 'X-Forwarded-For': '1.2.3.4' },
    );
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({ slug: 'hello-world' });
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('ratelimit-policy')).toBe('"free";q=10;w=60');
    expect(response.headers.get('ratelimit')).toMatch(/^"free";r=\d+;t=\d+$/);
  });

  it('answers 404 for unknown routes and 405 with Allow for other methods', async () => {
    const missing = await fetch(`${gateway.url}/no-such-route`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
    // Answered before the caller is known: the client IP's free-tier standing, with nothing spent.
    expect(missing.headers.get('ratelimit-policy')).toBe('"free";q=10;w=60');
    const wrongMethod = await fetch(`${gateway.url}/slugify`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await wrongMethod.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('answers CORS preflight on a route', async () => {
    const response = await fetch(`${gateway.url}/slugify`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.org', 'Access-Control-Request-Method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toContain('X-Api-Key');
  });

  it('refuses a body over 1 MiB with 413 request_too_large', async () => {
    const response = await postJson(
      `${gateway.url}/slugify`,
      { text: 'x'.repeat(1_100_000) },
      { 'x-api-key': 'pro-key', 'x-marketplace-proxy-secret': 'proxy-secret' },
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'request_too_large' });
  });

  it('refuses a body over 10 MB with 413 before any function runs, and closes the connection', async () => {
    const answer = await new Promise<{ status: number; connection?: string; body: string }>(
      (resolve, reject) => {
        const size = 11 * 1024 * 1024;
        const request = httpRequest(`${gateway.url}/slugify`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': size,
            'x-api-key': 'pro-key',
            'x-marketplace-proxy-secret': 'proxy-secret',
          },
        });
        request.on('response', async (response) => {
          let body = '';
          for await (const chunk of response) body += chunk;
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body });
        });
        // The gateway stops reading and closes; the rest of the upload may fail to send.
        request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
        request.end(Buffer.alloc(size, 'a'));
      },
    );
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'request_too_large' });
  });

  it('applies the proxy secret and API key rules of the contract', async () => {
    const url = `${gateway.url}/slugify`;
    const body = { text: 'a b' };
    const noSecret = await postJson(url, body, { 'x-api-key': 'pro-key' });
    expect(noSecret.status).toBe(403);
    expect(await noSecret.json()).toMatchObject({ error: 'invalid_proxy_secret' });
    const wrongSecretNoKey = await postJson(url, body, { 'x-marketplace-proxy-secret': 'nope' });
    expect(wrongSecretNoKey.status).toBe(403);
    const unknownKey = await postJson(url, body, {
      'x-api-key': 'stolen',
      'x-marketplace-proxy-secret': 'proxy-secret',
    });
    expect(unknownKey.status).toBe(401);
    expect(await unknownKey.json()).toMatchObject({ error: 'invalid_api_key' });
    const pro = await postJson(url, body, {
      'x-api-key': 'pro-key',
      'x-marketplace-proxy-secret': 'proxy-secret',
    });
    expect(pro.status).toBe(200);
    expect(pro.headers.get('ratelimit-policy')).toBe('"pro";q=100;w=60');
  });

  it('limits an enterprise key to its configured rate, with Retry-After', async () => {
    const headers = { 'x-api-key': 'big-key', 'x-marketplace-proxy-secret': 'proxy-secret' };
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i += 1) {
      last = await postJson(`${gateway.url}/slugify`, { text: `n ${i}` }, headers);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await last?.json()).toMatchObject({ error: 'rate_limit_exceeded' });
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last?.headers.get('ratelimit')).toMatch(/^"enterprise";r=0;t=\d+$/);
  });

  it('limits anonymous callers to 10 a minute per client IP, says what lifts it, and logs each 429', async () => {
    // A gateway of its own: the other tests' anonymous calls come from the same IP. Its log in the
    // short text lines a terminal gets, one per request.
    const own = await startLocalGateway({
      API_KEYS: 'pro-key:pro',
      MARKETPLACE_PROXY_SECRET: 'proxy-secret',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'text',
    });
    try {
      const statuses: number[] = [];
      let refused: Response | undefined;
      for (let i = 0; i < 12; i += 1) {
        const response = await postJson(`${own.url}/slugify`, { text: `a ${i}` });
        statuses.push(response.status);
        if (response.status === 429) refused = response;
      }
      expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
      expect(((await refused!.json()) as { message: string }).message).toMatch(
        /^Over 10 requests per minute per client IP, without an x-api-key \(free tier\); an x-api-key of the pro tier allows 100/,
      );
      // The lines reach this process through a pipe, a moment after the answers.
      const requestLines = await vi.waitFor(() => {
        const lines = own
          .output()
          .split('\n')
          .filter((line) => /^\d\d:\d\d:\d\d /.test(line));
        expect(lines).toHaveLength(12);
        return lines;
      });
      expect(requestLines.filter((line) => / 200 \/slugify free \d+ ms, /.test(line))).toHaveLength(10);
      expect(
        requestLines.filter((line) => / 429 rate_limit_exceeded \/slugify free 0 ms, /.test(line)),
      ).toHaveLength(2);
      for (const line of requestLines) expect(line.length).toBeLessThan(100);
      const keyed = await postJson(
        `${own.url}/slugify`,
        { text: 'still fine' },
        { 'x-api-key': 'pro-key', 'x-marketplace-proxy-secret': 'proxy-secret' },
      );
      expect(keyed.status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});
