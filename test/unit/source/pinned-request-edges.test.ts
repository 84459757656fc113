import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import { createServer, getDefaultAutoSelectFamily, type Server, setDefaultAutoSelectFamily } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HostLookup } from '#shared/source/address.ts';
import { openPinnedRequest } from '#shared/source/pinned-request.ts';
import { failure as refusal } from '../../support/http-error.ts';

/**
 * More of what the pinned request does: how each system error code reads, the TLS name it sends,
 * aborts during the lookup and mid-exchange, and the single-address lookup Node uses when it does
 * not race address families. Codes a loopback cannot produce come from a stubbed request; the
 * rest goes over real sockets.
 */
const stub = vi.hoisted(() => ({
  code: undefined as string | undefined,
  thrown: undefined as Error | undefined,
  sent: [] as Array<{ protocol: string; servername?: string }>,
}));

vi.mock('node:http', async (original) => {
  const actual = await original<typeof import('node:http')>();
  const request = ((url: URL, options: http.RequestOptions & { servername?: string }, ...rest: unknown[]) => {
    stub.sent.push({ protocol: url.protocol, servername: options.servername });
    if (stub.code === undefined) return actual.request(url, options, ...(rest as []));
    const fake = Object.assign(new EventEmitter(), {
      end: () => {
        stub.thrown = Object.assign(new Error(`connect ${stub.code}`), { code: stub.code });
        setImmediate(() => fake.emit('error', stub.thrown));
      },
    });
    return fake;
  }) as unknown as typeof actual.request;
  return { ...actual, request, default: { ...actual, request } };
});

vi.mock('node:https', async (original) => {
  const actual = await original<typeof import('node:https')>();
  const request = ((url: URL, options: { servername?: string }) => {
    stub.sent.push({ protocol: url.protocol, servername: options.servername });
    const fake = Object.assign(new EventEmitter(), {
      end: () =>
        setImmediate(() => fake.emit('error', Object.assign(new Error('stub'), { code: 'ECONNREFUSED' }))),
    });
    return fake;
  }) as unknown as typeof actual.request;
  return { ...actual, request, default: { ...actual, request } };
});

let silent: Server;
let silentPort = 0;
let echo: http.Server;
let echoPort = 0;

beforeAll(async () => {
  // Accepts connections and never answers.
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
  echo = http.createServer((_request, response) => response.writeHead(200).end('ok'));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as { port: number }).port;
});

afterAll(async () => {
  silent.close();
  echo.closeAllConnections();
  await new Promise((resolve) => echo.close(resolve));
});

afterEach(() => {
  stub.code = undefined;
  stub.thrown = undefined;
  stub.sent = [];
});

const toLoopback: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];

const open = (url: string, signal = AbortSignal.timeout(20_000), lookup: HostLookup = toLoopback) =>
  openPinnedRequest(new URL(url), { allowPrivate: true, signal, lookup });

describe('how a failure code reads', () => {
  it.each([
    ['CERT_HAS_EXPIRED', 'The TLS certificate of 127.0.0.1 was not accepted.'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'The TLS certificate of 127.0.0.1 was not accepted.'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'The TLS certificate of 127.0.0.1 was not accepted.'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'The TLS certificate of 127.0.0.1 was not accepted.'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'The TLS certificate of 127.0.0.1 was not accepted.'],
    ['HPE_INVALID_CONSTANT', '127.0.0.1 did not answer with valid HTTP.'],
    ['ETIMEDOUT', '127.0.0.1 could not be reached.'],
    ['EADDRNOTAVAIL', '127.0.0.1 could not be reached.'],
    // Codes that merely contain a known one are not that failure.
    ['XETIMEDOUT', 'Could not connect to 127.0.0.1.'],
    ['ETIMEDOUTX', 'Could not connect to 127.0.0.1.'],
    ['X_ERR_TLS', 'Could not connect to 127.0.0.1.'],
    ['X_ERR_SSL', 'Could not connect to 127.0.0.1.'],
    ['X_HPE_', 'Could not connect to 127.0.0.1.'],
  ])('%s: "%s"', async (code, message) => {
    stub.code = code;
    const error = await refusal(open('http://127.0.0.1:9/file'));
    expect(error.code).toBe('source_unreachable');
    expect(error.message).toBe(message);
    expect(error.cause).toBe(stub.thrown);
  });
});

describe('the TLS name', () => {
  it('is the host name asked for over https, so the certificate is checked against it', async () => {
    await refusal(open('https://source.test/file'));
    expect(stub.sent).toEqual([{ protocol: 'https:', servername: 'source.test' }]);
  });

  it('is not sent for an address literal, nor over plain http', async () => {
    await refusal(open('https://127.0.0.1:9/file'));
    stub.code = 'ECONNREFUSED';
    await refusal(open('http://source.test:9/file'));
    expect(stub.sent).toEqual([
      { protocol: 'https:', servername: undefined },
      { protocol: 'http:', servername: undefined },
    ]);
  });
});

describe('an abort', () => {
  it('during the lookup: rejects with its reason, and no request goes out', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    const lookup: HostLookup = async () => {
      controller.abort(reason);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    await expect(open(`http://source.test:${echoPort}/file`, controller.signal, lookup)).rejects.toBe(reason);
    expect(stub.sent).toEqual([]);
  });

  it('while waiting for the answer: rejects with its reason, not as a failed connection', async () => {
    const controller = new AbortController();
    const reason = new Error('time is up');
    setTimeout(() => controller.abort(reason), 200);
    await expect(open(`http://127.0.0.1:${silentPort}/file`, controller.signal)).rejects.toBe(reason);
  });
});

describe('the pinned lookup', () => {
  it('answers a single-address query too (when Node does not race address families)', async () => {
    const before = getDefaultAutoSelectFamily();
    setDefaultAutoSelectFamily(false);
    try {
      const response = await open(`http://source.test:${echoPort}/file`, AbortSignal.timeout(10_000));
      response.resume();
      expect(response.statusCode).toBe(200);
    } finally {
      setDefaultAutoSelectFamily(before);
    }
  });
});
