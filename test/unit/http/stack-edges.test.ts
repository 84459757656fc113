import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { contentDisposition, preflightHeaders } from '#shared/http/headers.ts';
import { scopeOf } from '#shared/http/middleware.ts';
import { tiers } from '#shared/tiers.ts';
import { apiEvent, call } from '../../support/lambda.ts';
import { testRoute } from '../../support/route.ts';

/**
 * More of the shared request stack, through its handlers: the JSON parser's refusals in our codes,
 * how validation names each field, what a work function is given, answers a GET work builds
 * itself, the headers every answer carries and the fields of the request line.
 */
const schema = z.strictObject({
  text: z.string().default('none'),
  options: z.strictObject({ level: z.number().int().max(3) }).optional(),
});
let lines: Record<string, unknown>[];
let handlers: Awaited<ReturnType<typeof loadHandlers>>;

/** The log level is read when the modules load: load them again with lines switched on. */
async function loadHandlers() {
  vi.stubEnv('LOG_LEVEL', 'info');
  vi.resetModules();
  const { createJsonHandler, createGetHandler } = await import('#shared/http/stack.ts');
  const { jsonResponse } = await import('#shared/http/respond.ts');
  const echo = createJsonHandler(testRoute('echo', schema), async ({ body, limits }) => ({ body, limits }));
  const broken = createJsonHandler(testRoute('broken', schema), async () => {
    throw new Error('disk on fire');
  });
  const refusing = createGetHandler(testRoute('nested/refusing', schema), async () =>
    jsonResponse(400, { error: 'invalid_input', message: 'built by the work itself' }),
  );
  const odd = createGetHandler(testRoute('odd', schema), async () =>
    jsonResponse(400, { error: 42, message: 'a code that is no string' }),
  );
  const statusful = createJsonHandler(testRoute('statusful', schema), async () => {
    throw Object.assign(new Error('upstream 503'), { statusCode: 503 });
  });
  const plain = createGetHandler(testRoute('plain', schema), async () => ({
    statusCode: 502,
    headers: { 'Content-Type': 'text/plain' },
    body: 'upstream said no',
  }));
  return { echo, broken, refusing, plain, odd, statusful };
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
const requestLine = () => lines.find((line) => line.message === 'request');

describe("the JSON parser's refusals, in the service's codes", () => {
  it('a body that is not JSON: 400 invalid_json', async () => {
    const answer = await call(handlers.echo, apiEvent('{"text": '));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
  });

  it('a prototype key: 400 validation_failed naming it as an unknown field', async () => {
    const answer = await call(handlers.echo, apiEvent('{"__proto__": {"admin": true}}'));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({ error: 'validation_failed', message: '__proto__: unknown field' });
  });

  it('a constructor.prototype key: 400 validation_failed naming "constructor"', async () => {
    const answer = await call(handlers.echo, apiEvent('{"constructor": {"prototype": {"admin": true}}}'));
    expect(answer.json()).toEqual({ error: 'validation_failed', message: 'constructor: unknown field' });
  });

  it('no body at all takes the defaults', async () => {
    const answer = await call(handlers.echo, apiEvent(undefined));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ body: { text: 'none' } });
  });

  it('an error from the work that carries an HTTP status of its own is still a bare 500', async () => {
    captureLines();
    const answer = await call(handlers.statusful, apiEvent({}));
    expect(answer.statusCode).toBe(500);
    expect((answer.json() as { error: string }).error).toBe('internal_error');
  });

  it('a media type in capitals is still JSON', async () => {
    const answer = await call(
      handlers.echo,
      apiEvent({ text: 'a' }, { headers: { 'Content-Type': 'Application/JSON; charset=UTF-8' } }),
    );
    expect(answer.statusCode).toBe(200);
  });
});

describe('validation messages', () => {
  it('name every unknown field by its path, and join the issues with "; "', async () => {
    const answer = await call(
      handlers.echo,
      apiEvent({ text: 1, colour: 'red', options: { level: 9, depth: 2 } }),
    );
    expect(answer.statusCode).toBe(400);
    const { error, message } = answer.json() as { error: string; message: string };
    expect(error).toBe('validation_failed');
    const issues = message.split('; ');
    expect(issues).toContain('colour: unknown field');
    expect(issues).toContain('options.depth: unknown field');
    expect(issues.find((issue) => issue.startsWith('text: '))).toBeDefined();
    expect(issues.find((issue) => issue.startsWith('options.level: '))).toBeDefined();
    expect(issues).toHaveLength(4);
  });

  it('call a problem with the body itself "(body)"', async () => {
    const answer = await call(handlers.echo, apiEvent('[1, 2]'));
    expect(answer.statusCode).toBe(400);
    expect((answer.json() as { message: string }).message).toMatch(/^\(body\): /);
  });
});

describe('what the work is given', () => {
  it("the caller's tier limits with its own requests per minute", async () => {
    const answer = await call(handlers.echo, apiEvent({ text: 'x' }, { tier: 'pro' }));
    expect(answer.json()).toEqual({
      body: { text: 'x' },
      limits: { ...tiers.pro, requestsPerMinute: 10 },
    });
  });
});

describe('headers of every answer', () => {
  it('CORS and the request id, on success and on error', async () => {
    for (const answer of [
      await call(handlers.echo, apiEvent({})),
      await call(handlers.echo, apiEvent('nope')),
    ]) {
      expect(answer.headers['Access-Control-Allow-Origin']).toBe('*');
      expect(answer.headers['Access-Control-Expose-Headers']).toContain('X-Request-Id');
      expect(answer.headers['X-Request-Id']).toMatch(/^test-/);
    }
  });

  it('a request id is made up when the event carries none', async () => {
    const event = apiEvent({});
    (event as { requestContext?: unknown }).requestContext = undefined;
    const answer = await call(handlers.echo, event);
    expect(answer.headers['X-Request-Id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('preflight answers list the methods and headers a browser may send', () => {
    expect(preflightHeaders).toMatchObject({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
      'Access-Control-Allow-Headers': 'Content-Type, X-Api-Key, X-Marketplace-Proxy-Secret',
      'Access-Control-Max-Age': '3600',
    });
  });
});

describe('the request scope', () => {
  it('is missing for an event the stack has not seen, and says which middleware must come first', () => {
    expect(() => scopeOf({})).toThrow('request scope missing: is requestScope() the first middleware?');
  });
});

describe('Content-Disposition', () => {
  it('reduces each run of unsafe characters to one underscore, at most 120 characters, "file" when empty', () => {
    expect(contentDisposition('my  file!!.pdf')).toBe('inline; filename="my_file_.pdf"');
    expect(contentDisposition(`${'a'.repeat(200)}.pdf`)).toBe(`inline; filename="${'a'.repeat(120)}"`);
    expect(contentDisposition('')).toBe('inline; filename="file"');
  });
});

describe('answers a GET work builds itself', () => {
  it('are sent as built, and their error code reaches the request line under the route name', async () => {
    captureLines();
    const answer = await call(handlers.refusing, apiEvent(undefined, { method: 'GET' }));
    expect(answer.statusCode).toBe(400);
    expect(answer.headers['X-Request-Id']).toMatch(/^test-/);
    expect(requestLine()).toMatchObject({
      route: 'nested-refusing',
      status: 400,
      errorCode: 'invalid_input',
    });
  });

  it('an error answer that is not JSON is logged with the code "unknown"', async () => {
    captureLines();
    const answer = await call(handlers.plain, apiEvent(undefined, { method: 'GET' }));
    expect(answer.statusCode).toBe(502);
    expect(requestLine()).toMatchObject({ status: 502, errorCode: 'unknown', bytesOut: 16 });
  });
});

describe('an event the stack cannot even read', () => {
  it('still gets a JSON 500 and an error line, with the request id "unknown"', async () => {
    captureLines();
    const event = apiEvent({});
    (event as unknown as { body: unknown }).body = 42;
    const answer = await call(handlers.echo, event);
    expect(answer.statusCode).toBe(500);
    expect(answer.headers['X-Request-Id']).toBe('unknown');
    expect(answer.json()).toEqual({
      error: 'internal_error',
      message: 'Unexpected error; quote request id unknown when reporting it.',
    });
    expect(lines.find((line) => line.message === 'request failed')).toMatchObject({ requestId: 'unknown' });
  });
});

describe('the request line', () => {
  it('logs an error answer whose code is not a string as "unknown"', async () => {
    captureLines();
    await call(handlers.odd, apiEvent(undefined, { method: 'GET' }));
    expect(requestLine()).toMatchObject({ status: 400, errorCode: 'unknown' });
  });

  it('counts the decoded bytes of a base64 body', async () => {
    captureLines();
    const event = apiEvent({ text: 'hello' }, { base64: true });
    await call(handlers.echo, event);
    expect(requestLine()).toMatchObject({ bytesIn: Buffer.byteLength(JSON.stringify({ text: 'hello' })) });
  });

  it('its duration is never longer than the call it measures', async () => {
    captureLines();
    const started = performance.now();
    await call(handlers.echo, apiEvent({}));
    const elapsed = performance.now() - started;
    expect(requestLine()?.durationMs).toBeLessThanOrEqual(Math.ceil(elapsed));
  });

  it('the error line of a 500 carries the stack, starting with the error itself', async () => {
    captureLines();
    await call(handlers.broken, apiEvent({}));
    const failure = lines.find((line) => line.message === 'request failed');
    expect(String(failure?.cause)).toMatch(/^Error: disk on fire\n\s+at /);
  });
});
