import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { documentedBody } from '#shared/openapi/async-jobs.ts';
import { routes } from '#shared/routes.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { referenceFfmpeg } from '../support/reference-tools.ts';
import { fuzzSeed } from './support.ts';

/**
 * Requests generated from the published openapi.yaml, for every operation, sent through the local
 * gateway: a request the document admits must never answer 5xx nor be refused as
 * `validation_failed` (the document would admit what the service refuses). Bodies are drawn from
 * each request body's schema (properties, enums, bounds, unions), kept only when the document's
 * own schema (with its oneOf, not and if/then rules) says they are valid, by Ajv. Source URLs point
 * at tiny files of the right kind, made by other tools than the service's (ImageMagick, Ghostscript,
 * Debian's ffmpeg), so that the work stays cheap; numbers lean to the low end of their range for the same
 * reason, with the upper bound drawn now and then.
 */

type Schema = Record<string, unknown>;
interface Operation {
  method: 'get' | 'post';
  path: string;
  body?: Schema;
}

const document = parse(await readFile(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { requestBody?: { $ref: string } }>>;
  components: { schemas: Record<string, Schema>; requestBodies: Record<string, Schema> };
};

/** Every `$ref` replaced by what it names (the document's references are not recursive). */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as Schema).$ref;
  if (typeof ref === 'string') {
    const [, , group, name] = ref.split('/');
    return resolve((document.components as Record<string, Record<string, unknown>>)[group!]![name!]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner)]));
}

const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => {
    const body = operation.requestBody
      ? ((resolve(operation.requestBody) as Schema).content as Record<string, { schema: Schema }>)[
          'application/json'
        ]!.schema
      : undefined;
    return { method: method as Operation['method'], path, ...(body ? { body } : {}) };
  }),
);

/** The fixture a route's sources point at, by the kind of file it reads. */
function sourceKind(path: string): keyof typeof sourcePaths {
  if (/^\/(image|web)/.test(path)) return 'image';
  if (path === '/image-to-pdf') return 'image';
  if (/^\/pdf/.test(path)) return 'pdf';
  if (/^\/(audio)/.test(path)) return 'audio';
  if (/^\/(video|media)/.test(path)) return 'video';
  if (/^\/(html|url)/.test(path)) return 'html';
  if (path === '/markdown-to-pdf') return 'markdown';
  return 'text';
}
const sourcePaths = {
  image: '/small.png',
  pdf: '/small.pdf',
  audio: '/small.wav',
  video: '/small.mp4',
  html: '/small.html',
  markdown: '/small.md',
  text: '/small.txt',
};

const colours = ['navy', '#fff', '#00000080', 'rgb(0 0 0 / 50%)', 'hsl(120, 50%, 50%)', 'not a colour'];

/** Numbers from a schema's range, mostly near its low end. */
function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const integer = schema.type === 'integer';
  const low = (schema.minimum as number | undefined) ?? (integer ? 0 : 0);
  const exclusiveLow = schema.exclusiveMinimum as number | undefined;
  const high = (schema.maximum as number | undefined) ?? low + 1000;
  const exclusiveHigh = schema.exclusiveMaximum as number | undefined;
  const min = exclusiveLow !== undefined ? exclusiveLow + (integer ? 1 : 0.5) : low;
  const max = exclusiveHigh !== undefined ? exclusiveHigh - (integer ? 1 : 0.5) : high;
  const near = Math.min(max, min + Math.max(1, Math.min(40, (max - min) / 20)));
  const range = integer
    ? (from: number, to: number) => fc.integer({ min: Math.ceil(from), max: Math.floor(to) })
    : (from: number, to: number) => fc.double({ min: from, max: to, noNaN: true, noDefaultInfinity: true });
  return fc.oneof(
    { weight: 10, arbitrary: range(min, near) },
    { weight: 1, arbitrary: range(min, max) },
    { weight: 1, arbitrary: fc.constant(integer ? Math.floor(max) : max) },
  );
}

/** Values for a schema: what its keywords describe, rules between fields left to the filter. */
function arbitraryOf(schema: Schema, field: string, sources: Record<string, string>): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives && !schema.type) {
    return fc.oneof(...alternatives.map((alternative) => arbitraryOf(alternative, field, sources)));
  }
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return numberArbitrary(schema);
    case 'string': {
      if (schema.format === 'uri') {
        return fc.constantFrom(sources.own!, sources.own!, sources.missing!, 'ftp://example.org/a');
      }
      if (field === 'background') return fc.constantFrom(...colours);
      // A one-time code (/totp-verify) is digits only: random strings would never be one.
      if (field === 'code') return fc.stringMatching(/^\d{6,8}$/);
      const maxLength = Math.min((schema.maxLength as number | undefined) ?? 40, 40);
      const minLength = Math.min((schema.minLength as number | undefined) ?? 0, maxLength);
      return fc.oneof(
        fc.string({ minLength, maxLength }),
        fc.constantFrom('Hello, Wörld!', '1-3', 'a'.repeat(Math.max(minLength, 1))),
      );
    }
    case 'array': {
      const items = arbitraryOf(schema.items as Schema, field, sources);
      const minLength = (schema.minItems as number | undefined) ?? 0;
      return fc.array(items, {
        minLength,
        maxLength: Math.min((schema.maxItems as number | undefined) ?? 3, Math.max(minLength, 3)),
      });
    }
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      // Jobs and exports are features of their own (their destinations answer 502 when they refuse).
      const names = Object.keys(properties).filter((name) => name !== 'callbackUrl' && name !== 'outputUrl');
      if (names.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }));
      const required = new Set((schema.required as string[] | undefined) ?? []);
      return fc.record(
        Object.fromEntries(names.map((name) => [name, arbitraryOf(properties[name]!, name, sources)])),
        { requiredKeys: names.filter((name) => required.has(name)) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/**
 * `validation_failed` answers the document cannot state in JSON Schema, each stated in the
 * field's description instead, and allowed only when its condition holds for the body.
 */
const describedOnly: Array<{ rule: string; message: RegExp; holds: (body: Schema) => boolean }> = [
  {
    rule: 'width × height within the pixel limit (a product)',
    message: /^width: width × height must stay within/,
    holds: (body) => (body.width as number) * (body.height as number) > 100e6,
  },
  {
    rule: 'width × height of a resize operation within the pixel limit (a product)',
    message: /^operations\.\d+\.width: width × height must stay within/,
    holds: (body) =>
      ((body.operations as Schema[] | undefined) ?? []).some(
        (step) => (step.width as number) * (step.height as number) > 100e6,
      ),
  },
  {
    rule: 'maxBytes reachable for the source (depends on its pixels)',
    message: /^maxBytes: /,
    holds: (body) => body.maxBytes !== undefined,
  },
  {
    rule: 'an fps that leaves a frame in the part converted (depends on the source’s length)',
    message: /^fps: at .* would hold no frame/,
    holds: (body) => body.fps !== undefined,
  },
  {
    rule: 'field names the source’s form has (depends on the source)',
    message: /^fields\.\S.*: the form has no such field/,
    holds: (body) => typeof body.fields === 'object' && Object.keys(body.fields as object).length > 0,
  },
  {
    rule: 'margin of a {width, height} page (arithmetic between fields)',
    message: /^margin: /,
    holds: (body) => typeof body.pageSize === 'object',
  },
];

const describedOnlyAllows = (message: string, body: Schema) =>
  describedOnly.some((each) => each.message.test(message) && each.holds(body));

/** Generated requests per operation: fewer where a real engine (browser, encoder) runs. */
const runsOf = (operation: Operation) =>
  /pdf|screenshot|video|audio|image/.test(operation.path) && operation.path !== '/pdf-info' ? 1 : 2;

/** A request may run a real encoder or browser on a loaded machine. */
const CALL_MS = 120_000;

/** Bodies the document admits for an operation, `count` at most, drawn with the fuzz seed. */
function admittedBodies(ajv: Ajv2020, operation: Operation, sources: Record<string, string>, count: number) {
  const valid = ajv.compile(operation.body!);
  const arbitrary = arbitraryOf(operation.body!, '', sources);
  const admitted: unknown[] = [];
  // Most random bodies miss a pattern somewhere (dates, colours, ranges, a password's line
  // breaks): draw plenty, cheaply, and draw again while none is admitted (a body of many
  // patterned fields, like /pdf-metadata's, can need several rounds).
  const perRound = Math.max(count * 40, 200);
  for (let round = 0; round < 25 && admitted.length === 0; round += 1) {
    const candidates = fc.sample(arbitrary, { numRuns: perRound, seed: fuzzSeed + round });
    admitted.push(...candidates.filter((candidate) => valid(candidate)));
  }
  return admitted.slice(0, count);
}

/**
 * Many bodies per operation against the zod schema the route validates with, in process: the
 * document and the schema must agree on every body the document admits, the rules between fields
 * included. Cheap (no request), so it draws hundreds.
 */
describe("bodies generated from openapi.yaml, against the routes' own schemas", () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const sources = { own: 'https://example.org/a.png', missing: 'http://example.org/missing' };
  for (const operation of operations.filter((each) => each.body)) {
    it(`POST ${operation.path}: every admitted body passes validation`, () => {
      const route = routes.find((each) => each.path === operation.path && each.method === 'POST')!;
      const schema = documentedBody(route)!;
      const bodies = admittedBodies(ajv, operation, sources, 300);
      expect(bodies.length).toBeGreaterThan(20);
      for (const body of bodies) {
        const refusals = (schema.safeParse(body).error?.issues ?? [])
          .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
          .filter((message) => !describedOnlyAllows(message, body as Schema));
        expect(refusals, JSON.stringify(body)).toEqual([]);
      }
    });
  }
});

describe('requests generated from openapi.yaml, through the local gateway', () => {
  let gateway: RunningGateway;
  const fixtures = new FixtureServer();
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  let folder = '';

  beforeAll(async () => {
    await fixtures.start();
    folder = await mkdtemp(join(tmpdir(), 'schema-conformance-'));
    const run = promisify(execFile);
    const file = (name: string) => join(folder, name);
    await run('convert', ['-size', '24x24', 'plasma:', file('small.png')]);
    await run('gs', [
      ...['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=pdfwrite', '-dDEVICEWIDTHPOINTS=144'],
      ...['-dDEVICEHEIGHTPOINTS=144', '-dFIXEDMEDIA', `-sOutputFile=${file('small.pdf')}`],
      ...['-c', '0.2 setgray 20 20 100 100 rectfill showpage'],
    ]);
    const lavfi = ['-v', 'error', '-nostdin', '-y', '-f', 'lavfi'];
    await run(referenceFfmpeg, [...lavfi, '-i', 'sine=frequency=440:duration=0.5', file('small.wav')]);
    await run(referenceFfmpeg, [
      ...lavfi,
      ...['-i', 'testsrc2=size=32x32:rate=10:duration=0.5', '-f', 'lavfi', '-i', 'sine=duration=0.5'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
      file('small.mp4'),
    ]);
    fixtures.serve('/small.png', await readFile(file('small.png')), 'image/png');
    fixtures.serve('/small.pdf', await readFile(file('small.pdf')), 'application/pdf');
    fixtures.serve('/small.wav', await readFile(file('small.wav')), 'audio/wav');
    fixtures.serve('/small.mp4', await readFile(file('small.mp4')), 'video/mp4');
    fixtures.serve('/small.html', '<!doctype html><title>t</title><p>Hello</p>', 'text/html');
    fixtures.serve('/small.md', '# Hello\n\nA paragraph.\n', 'text/markdown');
    fixtures.serve('/small.txt', 'hello\n', 'text/plain');
    gateway = sharedGateway();
  });

  afterAll(async () => {
    await gateway?.stop();
    await fixtures.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('covers every operation of the document', () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((operation) => operation.method === 'post').every((each) => each.body)).toBe(
      true,
    );
  });

  for (const operation of operations) {
    it(
      `${operation.method.toUpperCase()} ${operation.path}: what the document admits is accepted`,
      async () => {
        const sources = {
          own: fixtures.url(sourcePaths[sourceKind(operation.path)]),
          missing: fixtures.url('/missing'),
        };
        const path = operation.path
          .replace('{jobId}', 'AAAAAAAAAAAAAAAAAAAAAAAA')
          .replace('{asset}', 'swagger-ui.css');
        const bodies: unknown[] = operation.body
          ? admittedBodies(ajv, operation, sources, runsOf(operation))
          : [undefined];
        expect(bodies.length, 'the generator finds admitted bodies').toBeGreaterThan(0);
        for (const body of bodies) {
          const response = await fetch(`${gateway.url}${path}`, {
            method: operation.method.toUpperCase(),
            headers: {
              'x-api-key': SHARED_KEYS.enterprise,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          const text = Buffer.from(await response.arrayBuffer());
          const what = `${operation.method.toUpperCase()} ${operation.path} ${JSON.stringify(body)}`;
          expect(response.status, `${what} answered ${text.toString('utf8', 0, 300)}`).toBeLessThan(500);
          if (response.status !== 400) continue;
          const answer = JSON.parse(text.toString('utf8')) as { error: string; message: string };
          if (answer.error !== 'validation_failed') continue;
          const refusal = `${what} was refused: ${answer.message}`;
          expect(describedOnlyAllows(answer.message, body as Schema), refusal).toBe(true);
        }
      },
      CALL_MS * 3,
    );
  }
});
