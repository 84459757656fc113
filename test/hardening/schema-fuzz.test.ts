import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '#shared/routes.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { apiEvent } from '../support/lambda.ts';
import {
  callWithin,
  contractBreach,
  errorCodeOf,
  fieldsOf,
  fuzzSeed,
  getRoutes,
  handlerOf,
  PrivateTmp,
  postRoutes,
} from './support.ts';

/**
 * Arbitrary bodies, headers and content types for every route of the table, through the real
 * middy stacks: the answer is a 2xx, or a 4xx with exactly `{error, message}` and nothing internal.
 * Sources point at a loopback server that only answers junk, 404s and redirects, so no real
 * conversion runs.
 */

const CALL_MS = 10_000;
const RUNS_PER_ROUTE = 30;

/** Answers given before the work function runs: content type, size, JSON syntax, schema. */
const gateCodes = new Set([
  'unsupported_media_type',
  'request_too_large',
  'invalid_json',
  'validation_failed',
]);

const fixtures = new FixtureServer();
const tmp = new PrivateTmp();
let sourceUrls: string[] = [];

beforeAll(async () => {
  await tmp.open();
  await fixtures.start();
  sourceUrls = [
    fixtures.serve('/junk.bin', randomBytes(2048)),
    fixtures.serve('/junk.png', randomBytes(512), 'image/png'),
    fixtures.serve('/empty.mp4', Buffer.alloc(0), 'video/mp4'),
    fixtures.serve('/text.pdf', 'hello, not a pdf', 'application/pdf'),
    fixtures.route('/redirect.jpg', (_request, response) => {
      response.writeHead(302, { Location: fixtures.url('/junk.bin') }).end();
    }),
    fixtures.url('/missing.wav'),
  ];
});

afterAll(async () => {
  await fixtures.stop();
  await tmp.close();
});

const nanLike = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e309',
  '0x1F',
  '1_000',
  ' 42 ',
  '',
  '\u0000',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '%00%0d%0a',
  '../../../../etc/passwd',
  '\u0024{7*7}{{7*7}}',
  '<svg onload=alert(1)>',
  '\uD800',
  '\u202E\uFEFF',
  'a'.repeat(5000),
);

const hugeNumber = fc.constantFrom(
  1e308,
  -1e308,
  2 ** 53 + 2,
  -(2 ** 53),
  5e-324,
  0,
  -0,
  -1,
  2 ** 32,
  0.5,
  1.5,
  101,
  7681,
);

/** Any JSON value, with a bias towards the shapes that break validators. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: nanLike },
  { weight: 2, arbitrary: hugeNumber },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);

const prototypeKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
];

/** Puts keys on an object as own, enumerable properties, so that JSON.stringify writes them. */
function withOwnKeys(body: Record<string, unknown>, extra: ReadonlyArray<[string, unknown]>) {
  for (const [key, value] of extra) {
    Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return body;
}

/** A field value: the example's own, junk, or (for URL fields) a loopback source that answers junk. */
function fieldValue(route: RouteSpec, field: string): fc.Arbitrary<unknown> {
  const exampleValue = route.example?.[field];
  const own = exampleValue === undefined ? [] : [{ weight: 3, arbitrary: fc.constant(exampleValue) }];
  if (field === 'sourceUrl' || field === 'callbackUrl') {
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...sourceUrls) }, { weight: 1, arbitrary: junk });
  }
  if (field === 'sources') {
    return fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.constantFrom(...sourceUrls), { maxLength: 7 }) },
      { weight: 1, arbitrary: junk },
    );
  }
  return fc.oneof(...own, { weight: 2, arbitrary: junk });
}

/** A field's value in a body that is otherwise valid: URL fields always point at the loopback junk server. */
function validValue(route: RouteSpec, field: string): unknown {
  if (field === 'sourceUrl') return sourceUrls[0];
  if (field === 'sources') return [sourceUrls[0], sourceUrls[1]];
  return route.example?.[field];
}

/**
 * The route's example (its sources swapped for loopback ones) with zero to two fields replaced by
 * junk or dropped, and sometimes joined by prototype or unknown keys. Most bodies stay close to
 * valid, so the fuzzing reaches past validation into the work functions and the download.
 */
function mutatedBody(route: RouteSpec): fc.Arbitrary<unknown> {
  const fields = [...new Set([...fieldsOf(route), ...Object.keys(route.example ?? {})])];
  const mutable = [...fields, 'callbackUrl'];
  const change = fc
    .tuple(fc.constantFrom(...mutable), fc.boolean())
    .chain(([field, drop]) =>
      (drop ? fc.constant(undefined) : fieldValue(route, field)).map((value) => [field, value] as const),
    );
  return fc
    .tuple(
      fc.array(change, { maxLength: 2 }),
      fc.oneof(
        { weight: 4, arbitrary: fc.constant([] as Array<[string, unknown]>) },
        {
          weight: 1,
          arbitrary: fc.array(fc.tuple(fc.constantFrom(...prototypeKeys), junk), { maxLength: 2 }),
        },
        { weight: 1, arbitrary: fc.array(fc.tuple(fc.string({ maxLength: 12 }), junk), { maxLength: 1 }) },
      ),
    )
    .map(([changes, extra]) => {
      const body: Record<string, unknown> = {};
      for (const field of Object.keys(route.example ?? {})) body[field] = validValue(route, field);
      for (const [field, value] of changes) {
        if (value === undefined) delete body[field];
        else body[field] = value;
      }
      return withOwnKeys(body, extra);
    });
}

/** Request texts that are not the JSON they claim to be, or JSON at its edges. */
const rawText = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":1,}',
    "{'text':'a'}",
    '\uFEFF{}',
    'NaN',
    '{"count": NaN}',
    '{"count": 1e400, "bytes": -1e400, "length": 1e400}',
    '{"text":"a","text":5}',
    '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    `{"text":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
    '"just a string"',
    '[]',
    'null',
    '0',
    ' ',
    '\u0000',
  ),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
);

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON;CHARSET=UTF-16',
      'application/json ; foo=bar',
      'application/jsonx',
      'application/json-patch+json',
      'text/plain',
      'text/json',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      '',
      ' application/json',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

const headerName = fc.oneof(
  fc.constantFrom(
    'x-api-key',
    'x-marketplace-proxy-secret',
    'x-forwarded-for',
    'content-length',
    'content-encoding',
    'transfer-encoding',
    'x-request-id',
    'origin',
    'Content-Type',
    'CONTENT-TYPE',
  ),
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/),
);
const extraHeaders = fc.dictionary(headerName, fc.string({ maxLength: 60 }), { maxKeys: 4 });

interface PostCase {
  body: unknown;
  raw: boolean;
  contentType: string;
  headers: Record<string, string>;
  base64: boolean;
}

const postCase = (route: RouteSpec): fc.Arbitrary<PostCase> =>
  fc.record({
    body: fc.oneof(
      { weight: 5, arbitrary: mutatedBody(route) },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
      { weight: 2, arbitrary: rawText },
    ),
    raw: fc.boolean(),
    contentType,
    headers: extraHeaders,
    base64: fc.boolean(),
  });

const describeCase = (route: RouteSpec, value: unknown) => {
  const text = JSON.stringify(value, (_key, item) =>
    typeof item === 'string' && item.length > 80 ? `${item.slice(0, 80)}…` : item,
  );
  return `${route.method} ${route.path} ${text?.slice(0, 600)}`;
};

function expectNoPollution() {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
}

describe('the contract check the fuzzers rely on', () => {
  const answer = (statusCode: number, body: unknown, contentType = 'application/json; charset=utf-8') => ({
    statusCode,
    headers: { 'Content-Type': contentType },
    body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    json: () => (typeof body === 'string' ? JSON.parse(body) : body),
  });

  it('accepts 2xx answers and clean 4xx errors', () => {
    expect(contractBreach(answer(200, { ok: true }))).toBeUndefined();
    expect(
      contractBreach(answer(400, { error: 'invalid_input', message: 'The text is not base64.' })),
    ).toBeUndefined();
  });

  it.each([
    ['a 500', answer(500, { error: 'internal_error', message: 'Unexpected error; quote request id x.' })],
    ['a 3xx', answer(302, '')],
    ['a stack trace', answer(400, { error: 'invalid_input', message: 'boom\n    at parse (x.js:1:2)' })],
    ['a path', answer(400, { error: 'invalid_input', message: `cannot open ${process.cwd()}/x` })],
    ['a source line', answer(400, { error: 'invalid_input', message: 'failed in shared/x.ts:12' })],
    ['an errno', answer(400, { error: 'invalid_source_file', message: 'ENOENT: no such file' })],
    ['an extra key', answer(400, { error: 'invalid_input', message: 'x', stack: 'y' })],
    ['an unknown code', answer(400, { error: 'bad_thing', message: 'x' })],
    ['a code of another status', answer(400, { error: 'source_too_large', message: 'x' })],
    ['a body that is not JSON', answer(400, 'Bad Request', 'text/plain')],
    ['a wrong content type', answer(400, { error: 'invalid_input', message: 'x' }, 'text/html')],
  ])('refuses %s', (_what, bad) => {
    expect(contractBreach(bad)).toBeTypeOf('string');
  });
});

describe('schema fuzzing over every POST route of the table', () => {
  it('has POST routes to fuzz', () => {
    expect(postRoutes().length).toBeGreaterThan(0);
  });

  for (const route of postRoutes()) {
    it(`${route.path}: arbitrary bodies and headers answer 2xx or a clean 4xx`, async () => {
      const handler = await handlerOf(route);
      let passedTheGate = 0;
      await fc.assert(
        fc.asyncProperty(postCase(route), async (input) => {
          const text =
            typeof input.body === 'string' && input.raw ? input.body : JSON.stringify(input.body ?? null);
          const event = apiEvent(text, { path: route.path, base64: input.base64 });
          event.headers = { ...input.headers, 'Content-Type': input.contentType };
          const answer = await callWithin(handler, event, CALL_MS, describeCase(route, input));
          const breach = contractBreach(answer);
          if (!gateCodes.has(errorCodeOf(answer) ?? '')) passedTheGate += 1;
          if (breach) throw new Error(`${breach}\n  for ${describeCase(route, input)}`);
          expect(answer.headers['X-Request-Id']).toBeTruthy();
          if (route.kind === 'json' && answer.statusCode === 200) expect(() => answer.json()).not.toThrow();
          expectNoPollution();
        }),
        { numRuns: RUNS_PER_ROUTE, endOnFailure: true, seed: fuzzSeed },
      );
      // The fuzzing is only worth something if it gets past the body checks often enough.
      expect(passedTheGate).toBeGreaterThanOrEqual(RUNS_PER_ROUTE / 10);
      expect(await tmp.leftovers()).toEqual([]);
    });
  }
});

describe('prototype keys in a body', () => {
  for (const route of postRoutes()) {
    it(`${route.path}: refuses __proto__ and constructor.prototype as unknown fields`, async () => {
      const handler = await handlerOf(route);
      for (const [key, text] of [
        ['__proto__', '{"__proto__":{"polluted":"yes"}}'],
        ['constructor', '{"constructor":{"prototype":{"polluted":"yes"}}}'],
      ] as const) {
        const answer = await callWithin(
          handler,
          apiEvent(text, { path: route.path }),
          CALL_MS,
          `${route.path} ${text}`,
        );
        expect(contractBreach(answer)).toBeUndefined();
        expect(answer.json()).toEqual({ error: 'validation_failed', message: `${key}: unknown field` });
      }
      expectNoPollution();
    });
  }
});

/** Path parameter values for templated GET routes such as `/jobs/{jobId}`. */
const pathValue = fc.oneof(
  fc.constantFrom('../../etc/passwd', '%2e%2e%2f', '..', '.', '', 'a'.repeat(2000), '__proto__', 'null'),
  fc.string({ maxLength: 40 }),
  fc.stringMatching(/^[A-Za-z0-9_-]{24}$/),
);

describe('GET routes with arbitrary query strings and path parameters', () => {
  for (const route of getRoutes()) {
    it(`${route.path}: answers 2xx or a clean 4xx`, async () => {
      const handler = await handlerOf(route);
      const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((found) => found[1]!);
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }), { maxKeys: 5 }),
          fc.tuple(...names.map(() => pathValue)),
          fc.option(rawText),
          extraHeaders,
          async (query, values, body, headers) => {
            const event = apiEvent(body ?? undefined, { method: 'GET', path: route.path });
            event.headers = headers;
            event.queryStringParameters = query;
            event.multiValueQueryStringParameters = Object.fromEntries(
              Object.entries(query).map(([key, value]) => [key, [value]]),
            );
            event.pathParameters = names.length
              ? Object.fromEntries(names.map((name, index) => [name, values[index] ?? '']))
              : null;
            const what = describeCase(route, { query, values, headers });
            const answer = await callWithin(handler, event, CALL_MS, what);
            const breach = contractBreach(answer);
            if (breach) throw new Error(`${breach}\n  for ${what}`);
            expectNoPollution();
          },
        ),
        { numRuns: 40, endOnFailure: true, seed: fuzzSeed },
      );
      expect(await tmp.leftovers()).toEqual([]);
    });
  }
});
