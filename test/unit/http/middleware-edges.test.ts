import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { apiEvent, call } from '../../support/lambda.ts';
import { testRoute } from '../../support/route.ts';

/**
 * The edges of the shared request stack: the body size limit exactly at 1 MiB, a body of only
 * whitespace, the error line of a 500 and the fields of the request line.
 */
const MiB = 1024 * 1024;
const schema = z.strictObject({ text: z.string().default('none'), waitMs: z.number().int().default(0) });
let lines: Record<string, unknown>[];
let handlers: Awaited<ReturnType<typeof loadHandlers>>;

/** The log level is read when the modules load: load them again with lines switched on. */
async function loadHandlers() {
  vi.stubEnv('LOG_LEVEL', 'info');
  vi.resetModules();
  const { createJsonHandler } = await import('#shared/http/stack.ts');
  const echo = createJsonHandler(testRoute('echo', schema), async ({ body }) => {
    if (body.waitMs) await sleep(body.waitMs);
    return { length: body.text.length, text: body.text.slice(0, 10) };
  });
  const broken = createJsonHandler(testRoute('broken', schema), async () => {
    throw new Error('disk on fire at /var/task/secret.ts');
  });
  return { echo, broken };
}

beforeAll(async () => {
  handlers = await loadHandlers();
});
afterAll(() => vi.unstubAllEnvs());
afterEach(() => vi.restoreAllMocks());

function captureLines() {
  lines = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    return true;
  });
}

/** A JSON body of exactly `size` bytes. */
const bodyOfSize = (size: number) => {
  const frame = JSON.stringify({ text: '' });
  return JSON.stringify({ text: 'a'.repeat(size - frame.length) });
};

describe('the request body size limit', () => {
  it('accepts a body of exactly 1 MiB', async () => {
    const body = bodyOfSize(MiB);
    expect(Buffer.byteLength(body)).toBe(MiB);
    const answer = await call(handlers.echo, apiEvent(body));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ length: MiB - JSON.stringify({ text: '' }).length });
  });

  it('refuses 1 MiB + 1 byte with 413 request_too_large', async () => {
    const answer = await call(handlers.echo, apiEvent(bodyOfSize(MiB + 1)));
    expect(answer.statusCode).toBe(413);
    expect(answer.json()).toEqual({
      error: 'request_too_large',
      message: `The request body is over ${MiB} bytes.`,
    });
  });

  it('counts the decoded bytes of a base64 body: exactly 1 MiB passes', async () => {
    const answer = await call(handlers.echo, apiEvent(bodyOfSize(MiB), { base64: true }));
    expect(answer.statusCode).toBe(200);
  });
});

describe('an empty body', () => {
  it.each([
    ['spaces, tabs and line breaks', ' \t\r\n  \n'],
    ['nothing at all', ''],
  ])('of %s means "no fields": the defaults apply', async (_what, body) => {
    const answer = await call(handlers.echo, apiEvent(body));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ length: 4, text: 'none' });
  });
});

describe('a failure inside the work', () => {
  it('answers 500 internal_error without the cause, and logs the cause with the request id and route', async () => {
    captureLines();
    const event = apiEvent({});
    const answer = await call(handlers.broken, event);
    expect(answer.statusCode).toBe(500);
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('internal_error');
    expect(body.message).not.toMatch(/disk on fire|\/var\/task/);
    const failure = lines.find((line) => line.message === 'request failed');
    expect(failure).toMatchObject({
      level: 'error',
      requestId: event.requestContext.requestId,
      route: 'broken',
    });
    expect(String(failure?.cause)).toContain('disk on fire');
    const request = lines.find((line) => line.message === 'request');
    expect(request).toMatchObject({ status: 500, errorCode: 'internal_error', Responses5xx: 1 });
  });

  it('a 4xx is no failure of the service: no error line', async () => {
    captureLines();
    const answer = await call(handlers.echo, apiEvent({ text: 5 }));
    expect(answer.statusCode).toBe(400);
    expect(lines.filter((line) => line.message === 'request failed')).toEqual([]);
    expect(lines.find((line) => line.message === 'request')).toMatchObject({ status: 400 });
  });
});

describe('the request line', () => {
  it('names the request, route, tier and status, with the whole duration in whole milliseconds', async () => {
    captureLines();
    const event = apiEvent({ text: 'hello', waitMs: 120 }, { tier: 'pro' });
    const bytesIn = Buffer.byteLength(event.body ?? '');
    const answer = await call(handlers.echo, event);
    expect(answer.statusCode).toBe(200);
    const line = lines.find((entry) => entry.message === 'request');
    expect(line).toMatchObject({
      requestId: event.requestContext.requestId,
      route: 'echo',
      tier: 'pro',
      status: 200,
      bytesIn,
      bytesOut: answer.body.length,
    });
    expect(line).not.toHaveProperty('errorCode');
    // The work alone waited 120 ms: a slower machine only makes the duration longer.
    expect(Number.isInteger(line?.durationMs)).toBe(true);
    expect(line?.durationMs).toBeGreaterThanOrEqual(110);
  });
});
