import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson } from '../support/gateway.ts';
import {
  commandLine,
  descendants,
  environmentOf,
  isBlockedOnFutex,
  isRunning,
  waitFor,
  workersOf,
} from '../support/process-tree.ts';

/**
 * The local gateway runs each function as Lambda does: in worker processes of its own, one
 * invocation at a time, with the function's memory size and timeout from the stack's sizing table.
 * The gateway runs in this process, so its workers are this process's children. Misbehaving
 * handlers are made by the worker's test hooks (LOCAL_WORKER_TEST_HOOKS), on /text-case: 256 MiB,
 * 29 s, like every buffered route.
 */
const KEY = 'isolation-key';
const keyed = { 'x-api-key': KEY };
const upper = { text: 'still here', case: 'upper' };
const sources = new FixtureServer();
let gateway: Gateway;

beforeAll(async () => {
  vi.stubEnv('LOCAL_WORKER_TEST_HOOKS', '1');
  await sources.start();
  const { startGateway } = await import('../../infra/local/gateway.ts');
  gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    apiKeys: `${KEY}:enterprise:100000`,
    isolation: 'workers',
  });
});

afterAll(async () => {
  await gateway?.close();
  await sources.stop();
  vi.unstubAllEnvs();
});

const blockedWorkers = () => workersOf('text-case').filter(isBlockedOnFutex);

const expectGatewayError = async (response: Response, status: number) => {
  expect(response.status).toBe(status);
  const requestId = response.headers.get('x-request-id');
  expect(await response.json()).toEqual({
    error: 'internal_error',
    message: `Unexpected error; quote request id ${requestId} when reporting it.`,
  });
};

describe('worker processes of the local gateway', () => {
  it('runs a function in a worker with its Lambda memory size as the heap limit', async () => {
    const response = await postJson(`${gateway.url}/text-case`, upper, keyed);
    expect(await response.json()).toEqual({ case: 'upper', result: 'STILL HERE' });
    const [worker] = workersOf('text-case');
    expect(worker).toBeDefined();
    // 256 MiB for text routes in the route table (shared/routes/text.ts); the heap gets 85 % of it.
    expect(commandLine(worker!)).toContain(`--max-old-space-size=${Math.floor(256 * 0.85)}`);
    // Two malloc arenas, as the stack sets for every function (shared/routes/sizing.ts).
    expect(environmentOf(worker!)).toMatchObject({ MALLOC_ARENA_MAX: '2' });
  });

  it('ends a handler stuck past its 29 s timeout with 504, while other calls answer at once', async () => {
    const stuck = postJson(`${gateway.url}/text-case`, upper, { ...keyed, 'x-test-hook': 'block' });
    let stuckAnswered = false;
    void stuck.then(() => {
      stuckAnswered = true;
    });
    expect(await waitFor(() => blockedWorkers().length === 1, 20_000)).toBe(true);
    const [blocked] = blockedWorkers();
    // The same function in another worker, and another function, are not held up.
    const sameFunction = await postJson(`${gateway.url}/text-case`, upper, keyed);
    expect(sameFunction.status).toBe(200);
    const status = await fetch(`${gateway.url}/status`);
    expect(status.status).toBe(200);
    expect(stuckAnswered).toBe(false);
    await expectGatewayError(await stuck, 504);
    expect(await waitFor(() => !isRunning(blocked!), 5_000)).toBe(true);
  }, 60_000);

  it.each([
    ['outside the JavaScript heap (the memory watch)', 'memory'],
    ['in the JavaScript heap (the heap limit)', 'heap'],
  ])(
    'replaces a worker that runs out of memory %s: 502, then the next call answers',
    async (_name, hook) => {
      const blown = await postJson(`${gateway.url}/text-case`, upper, { ...keyed, 'x-test-hook': hook });
      await expectGatewayError(blown, 502);
      const next = await postJson(`${gateway.url}/text-case`, upper, keyed);
      expect(next.status).toBe(200);
      expect(await next.json()).toEqual({ case: 'upper', result: 'STILL HERE' });
    },
    60_000,
  );

  /** A /text-case call whose worker misbehaves as `hook` says, and its caller's way to leave. */
  const callThatWillBeLeft = (hook: string) => {
    const leaving = new AbortController();
    const abandoned = fetch(`${gateway.url}/text-case`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyed, 'x-test-hook': hook },
      body: JSON.stringify(upper),
      signal: leaving.signal,
    }).catch(() => undefined);
    return async () => {
      leaving.abort();
      await abandoned;
    };
  };

  it('ends the worker of a caller who leaves', async () => {
    const leave = callThatWillBeLeft('block');
    expect(await waitFor(() => blockedWorkers().length === 1, 20_000)).toBe(true);
    const [blocked] = blockedWorkers();
    await leave();
    // Ended now, long before its 29 s timeout.
    expect(await waitFor(() => !isRunning(blocked!), 10_000)).toBe(true);
  }, 60_000);

  it('ends the processes a worker started with the worker', async () => {
    const leave = callThatWillBeLeft('child');
    const started = () =>
      blockedWorkers().flatMap((worker) =>
        descendants(worker).filter((pid) => commandLine(pid)?.join(' ') === 'sleep 600'),
      );
    expect(await waitFor(() => started().length === 1, 20_000)).toBe(true);
    const [engine] = started();
    await leave();
    expect(await waitFor(() => !isRunning(engine!), 10_000)).toBe(true);
  }, 60_000);

  it("ends a worker's browser with the worker, as an execution environment ends whole", async () => {
    const printed = await postJson(`${gateway.url}/html-to-pdf`, { html: '<h1>kept warm</h1>' }, keyed);
    expect(printed.status).toBe(200);
    await printed.arrayBuffer();
    const [worker] = workersOf('html-to-pdf');
    expect(worker).toBeDefined();
    // The browser stays up between requests: a child of the worker that outlives the request.
    const browsers = descendants(worker).filter((pid) => commandLine(pid)?.[0]?.endsWith('/chromium'));
    expect(browsers.length).toBeGreaterThan(0);
    process.kill(worker!, 'SIGKILL');
    expect(await waitFor(() => !browsers.some(isRunning), 10_000)).toBe(true);
  }, 60_000);

  it('streams a file answer from its worker, byte for byte', async () => {
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3a7' } })
      .png()
      .toBuffer();
    const sourceUrl = sources.serve('/big.png', png, 'image/png');
    const response = await postJson(
      `${gateway.url}/image-convert`,
      { sourceUrl, outputFormat: 'bmp' },
      keyed,
    );
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('content-type')).toBe('image/bmp');
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.length).toBeGreaterThan(640 * 480 * 3);
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('BM');
    expect(workersOf('image-convert')).toHaveLength(1);
  }, 60_000);

  it('keeps the warm worker of a caller that closes its connection once it has the whole file', async () => {
    // Made by ImageMagick; /image-convert answers it as a streamed PNG with its Content-Length.
    const jpeg = execFileSync('convert', ['-size', '160x120', 'gradient:red-blue', 'jpg:-']);
    const sourceUrl = sources.serve('/closing.jpg', jpeg, 'image/jpeg');
    const body = { sourceUrl, outputFormat: 'png' };
    const warm = await postJson(`${gateway.url}/image-convert`, body, keyed);
    expect(warm.status).toBe(200);
    await warm.arrayBuffer();
    const seen = new Set(workersOf('image-convert'));
    expect(seen.size).toBe(1);
    // As curl and most one-shot clients do: one connection per request, closed after the answer,
    // here while each invocation still cleans up after its last byte (`linger`). A call that comes
    // while the previous one lingers gets a second worker, as Lambda would give it.
    for (let call = 0; call < 3; call += 1) {
      const answer = await postOnItsOwnConnection(`${gateway.url}/image-convert`, body);
      expect(answer.status).toBe(200);
      expect(answer.bytes.length).toBe(answer.contentLength);
      expect(answer.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
      for (const pid of workersOf('image-convert')) seen.add(pid);
    }
    // No worker was ended as if its caller had left: every one that served these calls is warm.
    expect([...seen].filter((pid) => !isRunning(pid))).toEqual([]);
  }, 60_000);
});

/** A POST on a connection of its own (no keep-alive), closed by the client once the answer is read. */
function postOnItsOwnConnection(
  url: string,
  body: unknown,
): Promise<{ status: number; contentLength: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const call = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-test-hook': 'linger', ...keyed },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () => {
          response.socket.destroy();
          resolve({
            status: response.statusCode ?? 0,
            contentLength: Number(response.headers['content-length']),
            bytes: Buffer.concat(chunks),
          });
        });
        response.once('error', reject);
      },
    );
    call.once('error', reject);
    call.end(JSON.stringify(body));
  });
}
