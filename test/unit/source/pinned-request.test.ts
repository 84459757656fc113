import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { statusOf } from '#shared/http/errors.ts';
import type { HostLookup } from '#shared/source/address.ts';
import { openPinnedRequest } from '#shared/source/pinned-request.ts';

/**
 * What a connection failure tells the caller, an abort before anything is sent, and the headers
 * that go out. Failures the loopback cannot produce (an unreachable host) come from a request that
 * fails with the system's error code; everything else goes over real sockets.
 */
const failure = vi.hoisted(() => ({ code: undefined as string | undefined }));

vi.mock('node:http', async (original) => {
  const actual = await original<typeof import('node:http')>();
  const request = ((...args: Parameters<typeof actual.request>) => {
    if (failure.code === undefined) return actual.request(...args);
    const fake = Object.assign(new EventEmitter(), {
      end: () => {
        const error = Object.assign(new Error(`connect ${failure.code}`), { code: failure.code });
        setImmediate(() => fake.emit('error', error));
      },
    });
    return fake;
  }) as typeof actual.request;
  return { ...actual, request, default: { ...actual, request } };
});

let resetting: Server;
let resetPort = 0;
let seen: http.IncomingHttpHeaders | undefined;
let echo: http.Server;
let echoPort = 0;

beforeAll(async () => {
  // Accepts the connection, then drops it without a byte: the client sees ECONNRESET.
  resetting = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
  resetPort = (resetting.address() as { port: number }).port;
  echo = http.createServer((request, response) => {
    seen = request.headers;
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => resetting.close(resolve));
  await new Promise((resolve) => echo.close(resolve));
});

afterEach(() => {
  failure.code = undefined;
});

const open = (url: string, extra: { signal?: AbortSignal; lookup?: HostLookup } = {}) =>
  openPinnedRequest(new URL(url), {
    allowPrivate: true,
    signal: extra.signal ?? new AbortController().signal,
    lookup: extra.lookup,
    headers: { accept: '*/*', 'accept-encoding': 'identity' },
  });

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('a connection that fails', () => {
  it('dropped before any answer: "closed the connection before answering"', async () => {
    const error = await refusal(open(`http://127.0.0.1:${resetPort}/file`));
    expect(error.code).toBe('source_unreachable');
    expect(statusOf(error)).toBe(400);
    expect(error.message).toBe('127.0.0.1 closed the connection before answering.');
  });

  it.each([
    ['EHOSTUNREACH', '127.0.0.1 could not be reached.'],
    ['ENETUNREACH', '127.0.0.1 could not be reached.'],
    ['ECONNRESET', '127.0.0.1 closed the connection before answering.'],
    ['ECONNREFUSED', '127.0.0.1 refused the connection.'],
    ['EPROTO', 'Could not connect to 127.0.0.1.'],
  ])('%s: the caller reads "%s", nothing more', async (code, message) => {
    failure.code = code;
    const error = await refusal(open('http://127.0.0.1:9/file'));
    expect(error.code).toBe('source_unreachable');
    expect(error.message).toBe(message);
  });
});

describe('an abort', () => {
  it('already signalled: rejects with its reason before the name is even looked up', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    controller.abort(reason);
    const lookups: string[] = [];
    const lookup: HostLookup = async (hostname) => {
      lookups.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    await expect(
      open(`http://source.test:${echoPort}/file`, { signal: controller.signal, lookup }),
    ).rejects.toBe(reason);
    expect(lookups).toEqual([]);
  });
});

describe('the request that goes out', () => {
  it('carries the headers it was given, asking for the bytes as stored (accept-encoding: identity)', async () => {
    const response = await open(`http://127.0.0.1:${echoPort}/file`);
    response.resume();
    expect(response.statusCode).toBe(200);
    expect(seen?.['accept-encoding']).toBe('identity');
  });
});
