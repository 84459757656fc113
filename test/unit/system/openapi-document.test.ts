import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { errorStatus } from '#shared/http/errors.ts';
import { withCallback } from '#shared/jobs/callback.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { bufferedSizing, streamedSizing } from '#shared/routes/sizing.ts';
import type { RouteSpec } from '#shared/routes/types.ts';
import { routes } from '#shared/routes.ts';

/** Reads a value of the document by its keys. */
const at = (value: unknown, ...keys: (string | number)[]): unknown =>
  keys.reduce<unknown>((inner, key) => (inner as Record<string | number, unknown> | undefined)?.[key], value);
const keysAt = (value: unknown, ...keys: string[]) => Object.keys(at(value, ...keys) as object);

const options = { version: '9.9.9', license: 'UNLICENSED' };

const jsonRoute: RouteSpec = {
  method: 'POST',
  path: '/echo-words',
  function: 'echo-words',
  kind: 'json',
  sizing: bufferedSizing(256, false),
  tag: 'Text',
  summary: 'Echo words',
  description: 'What the contract leaves open, said here.',
  body: z.strictObject({
    text: z.string().min(1),
    separator: z.string().default('-'),
    limit: z.number().int().min(1).optional(),
  }),
  response: z.object({ words: z.array(z.string()) }),
  example: { text: 'a b' },
  errors: ['invalid_input'],
};

const fileRoute: RouteSpec = {
  method: 'POST',
  path: '/shrink-image',
  function: 'shrink-image',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  tag: 'Image',
  summary: 'Shrink an image',
  body: z.strictObject({ sourceUrl: z.string(), outputFormat: z.enum(['png', 'webp']).default('png') }),
  produces: ['image/png', 'image/webp'],
  example: { sourceUrl: 'https://example.org/a.png' },
  errors: ['source_timeout', 'source_too_large', 'unsupported_input_format'],
};

const getRoute: RouteSpec = {
  method: 'GET',
  path: '/things/{thingId}',
  function: 'things',
  kind: 'system',
  sizing: bufferedSizing(256, false),
  tag: 'Jobs',
  summary: 'Read a thing',
  errors: ['not_found'],
};

const build = (table: RouteSpec[]): unknown => buildOpenApiDocument(table, options);

describe('the OpenAPI document built from a route table', () => {
  it('describes exactly the routes of the table', () => {
    const document = build([jsonRoute, getRoute]);
    expect(keysAt(document, 'paths')).toEqual(['/echo-words', '/things/{thingId}']);
    expect(keysAt(document, 'paths', '/echo-words')).toEqual(['post']);
    expect((at(document, 'tags') as { name: string }[]).map((tag) => tag.name)).toEqual(['Text', 'Jobs']);
    expect(at(document, 'openapi')).toBe('3.1.0');
    expect(at(document, 'info')).toMatchObject({ version: '9.9.9', license: { name: 'UNLICENSED' } });
    expect(at(document, 'servers', 0)).toEqual({
      url: 'http://127.0.0.1:3000',
      description: expect.any(String),
    });
  });

  it('describes request bodies as clients write them: defaults, optional fields, no unknown fields', () => {
    const document = build([jsonRoute]);
    const operation = at(document, 'paths', '/echo-words', 'post');
    // A request body component, so that generators type defaulted fields as optional to send.
    expect(at(operation, 'requestBody')).toEqual({ $ref: '#/components/requestBodies/EchoWordsRequest' });
    const body = at(document, 'components', 'requestBodies', 'EchoWordsRequest');
    expect(at(body, 'required')).toBe(true);
    expect(at(body, 'content', 'application/json', 'example')).toEqual({ text: 'a b' });
    expect(at(document, 'components', 'schemas', 'EchoWordsRequest')).toBeUndefined();
    const schema = at(body, 'content', 'application/json', 'schema');
    expect(at(schema, 'required')).toEqual(['text']);
    expect(at(schema, 'properties', 'separator', 'default')).toBe('-');
    expect(at(schema, 'additionalProperties')).toBe(false);
    expect(at(schema, '$schema')).toBeUndefined();
    expect(at(operation, 'description')).toBe('What the contract leaves open, said here.');
    expect(at(operation, 'operationId')).toBe('echoWords');
  });

  it('describes JSON answers without forbidding fields the service may add later', () => {
    const document = build([jsonRoute]);
    expect(
      at(
        document,
        'paths',
        '/echo-words',
        'post',
        'responses',
        '200',
        'content',
        'application/json',
        'schema',
      ),
    ).toEqual({
      $ref: '#/components/schemas/EchoWordsResponse',
    });
    expect(at(document, 'components', 'schemas', 'EchoWordsResponse')).toEqual({
      type: 'object',
      properties: { words: { type: 'array', items: { type: 'string' } } },
      required: ['words'],
    });
  });

  it('gives every POST route the common errors, its own, each under its status with an example', () => {
    const document = build([jsonRoute]);
    const responses = at(document, 'paths', '/echo-words', 'post', 'responses');
    const bad = at(responses, '400', 'content', 'application/json');
    expect(at(bad, 'schema', 'allOf', 0)).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(at(bad, 'schema', 'allOf', 1, 'properties', 'error', 'enum')).toEqual([
      'invalid_json',
      'validation_failed',
      'invalid_input',
    ]);
    expect(keysAt(bad, 'examples')).toEqual(['invalid_json', 'validation_failed', 'invalid_input']);
    expect(at(document, 'components', 'examples', 'invalid_input', 'value')).toEqual({
      error: 'invalid_input',
      message: expect.any(String),
    });
    for (const [status, name] of [
      ['401', 'InvalidApiKey'],
      ['403', 'InvalidProxySecret'],
      ['413', 'RequestTooLarge'],
      ['415', 'UnsupportedMediaType'],
      ['429', 'RateLimitExceeded'],
      ['500', 'InternalError'],
    ]) {
      expect(at(responses, status!)).toEqual({ $ref: `#/components/responses/${name}` });
    }
    expect(at(document, 'components', 'responses', 'RateLimitExceeded', 'headers', 'Retry-After')).toEqual({
      $ref: '#/components/headers/RetryAfter',
    });
    expect(at(document, 'components', 'schemas', 'ErrorBody', 'properties', 'error', 'enum')).toEqual(
      Object.keys(errorStatus),
    );
  });

  it('answers file routes with their content types as binary, and documents async jobs', () => {
    const document = build([fileRoute]);
    const operation = at(document, 'paths', '/shrink-image', 'post');
    const ok = at(operation, 'responses', '200');
    // The file, or with outputUrl the JSON that says where it went.
    expect(keysAt(ok, 'content')).toEqual(['image/png', 'image/webp', 'application/json']);
    expect(at(ok, 'content', 'image/png', 'schema')).toEqual({ type: 'string', format: 'binary' });
    expect(at(ok, 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/OutputSent',
    });
    expect(at(operation, 'parameters')).toEqual([
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    ]);
    expect(keysAt(ok, 'headers')).toEqual(
      expect.arrayContaining(['Content-Disposition', 'Content-Length', 'X-Request-Id', 'RateLimit']),
    );
    expect(at(operation, 'responses', '202', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/JobAccepted',
    });
    const callbackUrl = at(
      document,
      ...['components', 'requestBodies', 'ShrinkImageRequest', 'content', 'application/json', 'schema'],
      ...['properties', 'callbackUrl'],
    );
    expect(at(callbackUrl, 'type')).toBe('string');
    expect(at(callbackUrl, 'format')).toBe('uri');
    expect(
      at(
        operation,
        'responses',
        '401',
        'content',
        'application/json',
        'schema',
        'allOf',
        1,
        'properties',
        'error',
        'enum',
      ),
    ).toEqual(['invalid_api_key', 'missing_api_key']);
    expect(
      at(
        operation,
        'responses',
        '413',
        'content',
        'application/json',
        'schema',
        'allOf',
        1,
        'properties',
        'error',
        'enum',
      ),
    ).toEqual(['request_too_large', 'source_too_large']);
    expect(at(operation, 'responses', '504')).toEqual({ $ref: '#/components/responses/SourceTimeout' });
    expect(at(document, 'info', 'description')).toContain('## Source download');
    expect(at(document, 'info', 'description')).not.toContain('## Async jobs');
  });

  it('names the tiers of async jobs in the operation, the tier table and the async jobs section', () => {
    const enterpriseJobs: RouteSpec = { ...fileRoute, tierNeeds: { asyncJobs: ['enterprise'] } };
    const jobs = routes.find((route) => route.path === '/jobs/{jobId}')!;
    const document = build([enterpriseJobs, jobs]);
    const operation = at(document, 'paths', '/shrink-image', 'post', 'description');
    expect(operation).toContain('With `callbackUrl` (enterprise) the request is answered 202');
    const info = at(document, 'info', 'description') as string;
    expect(info).toContain('## Async jobs (enterprise)');
    expect(info).toMatch(/\| pro \|[^\n]*\| no \|\n/);
    expect(info).toMatch(/\| enterprise \|[^\n]*\| yes \|$/m);
  });

  it('describes GET routes with their path parameters and only the errors a GET can give', () => {
    const document = build([getRoute]);
    const operation = at(document, 'paths', '/things/{thingId}', 'get');
    expect(at(operation, 'parameters')).toEqual([
      { name: 'thingId', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(at(operation, 'requestBody')).toBeUndefined();
    expect(keysAt(operation, 'responses')).toEqual(['200', '401', '403', '404', '429', '500']);
    expect(at(operation, 'responses', '200', 'description')).toBe('OK');
    expect(at(document, 'info', 'description')).not.toContain('## Source download');
  });

  it('offers optional x-api-key and proxy secret security', () => {
    const document = build([getRoute]);
    expect(at(document, 'security')).toEqual([
      {},
      { ApiKey: [] },
      { ApiKey: [], MarketplaceProxySecret: [] },
    ]);
    expect(at(document, 'components', 'securitySchemes', 'ApiKey')).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
    expect(at(document, 'components', 'securitySchemes', 'MarketplaceProxySecret')).toMatchObject({
      in: 'header',
      name: 'x-marketplace-proxy-secret',
    });
  });

  it('turns named and recursive zod schemas into components with working references', () => {
    const point = z.object({ x: z.number(), y: z.number() }).meta({ id: 'Point' });
    const route: RouteSpec = {
      ...jsonRoute,
      body: z.strictObject({ from: point, to: point }),
      example: { from: { x: 0, y: 0 }, to: { x: 1, y: 1 } },
    };
    const document = build([route]);
    const schema = [
      'components',
      'requestBodies',
      'EchoWordsRequest',
      'content',
      'application/json',
      'schema',
    ];
    expect(at(document, ...schema, 'properties', 'from')).toEqual({
      $ref: '#/components/schemas/EchoWordsRequestPoint',
    });
    expect(at(document, 'components', 'schemas', 'EchoWordsRequestPoint', 'required')).toEqual(['x', 'y']);
    expect(JSON.stringify(document)).not.toContain('#/$defs/');
  });
});

describe('request examples', () => {
  it('shows one example as example, several as named examples with the typical one first', () => {
    const single = build([jsonRoute]);
    const content = ['components', 'requestBodies', 'EchoWordsRequest', 'content', 'application/json'];
    expect(at(single, ...content, 'example')).toEqual({ text: 'a b' });
    expect(at(single, ...content, 'examples')).toBeUndefined();

    const named = build([
      {
        ...jsonRoute,
        moreExamples: { limited: { summary: 'At most two', body: { text: 'a b c', limit: 2 } } },
      },
    ]);
    expect(at(named, ...content, 'example')).toBeUndefined();
    expect(at(named, ...content, 'examples')).toEqual({
      typical: { summary: 'A typical request', value: { text: 'a b' } },
      limited: { summary: 'At most two', value: { text: 'a b c', limit: 2 } },
    });
  });
});

describe('the rows of the route table', () => {
  it.each(routes.filter((route) => route.example).map((route) => [route.path, route] as const))(
    '%s: its example is a valid request',
    (_path, route) => {
      const body =
        route.kind === 'file' && route.body instanceof z.ZodObject ? withCallback(route.body) : route.body;
      expect(body, 'a route with an example needs a body schema').toBeDefined();
      expect(body!.safeParse(route.example).error?.issues ?? []).toEqual([]);
    },
  );

  it.each(
    routes.flatMap((route) =>
      Object.entries(route.moreExamples ?? {}).map(
        ([name, example]) => [route.path, name, route, example] as const,
      ),
    ),
  )('%s: its example %s is a valid request', (_path, _name, route, example) => {
    const body =
      route.kind === 'file' && route.body instanceof z.ZodObject ? withCallback(route.body) : route.body;
    expect(body!.safeParse(example.body).error?.issues ?? []).toEqual([]);
  });

  it('have distinct method and path pairs and operation ids', () => {
    const { paths } = buildOpenApiDocument(routes, options);
    const ids = Object.values(paths).flatMap((operations) =>
      Object.values(operations).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(routes.length);
  });
});
