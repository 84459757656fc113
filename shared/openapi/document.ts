import * as z from 'zod';
import type { ErrorCode } from '#shared/errors.ts';
import { errorStatus } from '#shared/http/errors.ts';
import {
  asyncJobErrors,
  asyncJobsNote,
  asyncJobTiers,
  documentedBody,
  idempotencyKeyParameter,
  isAsyncCapable,
  jobAccepted,
  outputSent,
} from '#shared/openapi/async-jobs.ts';
import { byStatus, errorMeanings, routeErrors } from '#shared/openapi/errors.ts';
import { apiDescription } from '#shared/openapi/info.ts';
import { type JsonSchema, propertyNames, ref, SchemaRegistry } from '#shared/openapi/json-schema.ts';
import type { RouteSpec } from '#shared/routes/types.ts';

export interface DocumentOptions {
  /** The API version, `info.version`. */
  version: string;
  /** The license name, `info.license.name` (an SPDX identifier, or npm's `UNLICENSED`). */
  license: string;
}

type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, JsonSchema>> };

const tagDescriptions: Record<RouteSpec['tag'], string> = {
  System: 'Health, capabilities and this documentation.',
  Image:
    'Convert, resize, optimize and inspect images (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico).',
  PDF: 'Merge, split, compress, rasterize and inspect PDFs; turn images into PDFs.',
  Media: 'Convert audio and video, extract audio, take thumbnails and inspect media (ffmpeg).',
  Text: 'Slugs, hashes, encodings, letter case and statistics of text.',
  Crypto: 'HMAC, UUIDs, random bytes, passwords, JWTs, encryption and remote file checksums.',
  Jobs: 'Async jobs of file routes (paid tiers).',
  Documents: 'HTML, web pages and Markdown to PDF, web pages to images (a real browser engine).',
  Codes: 'QR codes and barcodes: drawn from a text, and read from images and PDF pages.',
  OCR: 'Text of images and scanned PDFs (Tesseract), as JSON, plain text or a searchable PDF.',
};

const statusNames: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  504: 'Source timeout',
};

const errorBody = z.object({
  error: z
    .enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]])
    .describe('A stable, machine-readable code.'),
  message: z
    .string()
    .describe('Human-readable; for validation_failed it names every offending field by its path.'),
});

/** What the gateway itself answers before any route is matched. */
const gatewayErrors: readonly ErrorCode[] = ['not_found', 'method_not_allowed'];

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

const components = {
  securitySchemes: {
    ApiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description:
        'Optional. Without it a request is the free tier; a key selects its tier (pro, enterprise). Unknown or revoked → 401 invalid_api_key.',
    },
    MarketplaceProxySecret: {
      type: 'apiKey',
      in: 'header',
      name: 'x-marketplace-proxy-secret',
      description:
        'Needed with x-api-key when the deployment is configured with a marketplace proxy secret; a wrong secret is always refused (403 invalid_proxy_secret).',
    },
  },
  headers: {
    XRequestId: {
      description: 'The id of this request; quote it when reporting a problem.',
      schema: { type: 'string' },
    },
    RateLimit: {
      description:
        'Remaining requests and seconds until the window frees one, e.g. `"free";r=9;t=60` (IETF httpapi ratelimit-headers draft). Sent by the local gateway.',
      schema: { type: 'string' },
    },
    RateLimitPolicy: {
      description: 'The quota of the caller\'s tier, e.g. `"free";q=10;w=60`. Sent by the local gateway.',
      schema: { type: 'string' },
    },
    RetryAfter: {
      description: 'Seconds to wait before the next request is allowed.',
      schema: { type: 'integer', minimum: 0 },
    },
    ContentDisposition: {
      description: '`inline; filename="<source base name>.<ext>"`.',
      schema: { type: 'string' },
    },
    ContentLength: {
      description: 'The size of the file in bytes, where known.',
      schema: { type: 'integer' },
    },
  },
};

const everyAnswerHeaders = {
  'X-Request-Id': header('XRequestId'),
  RateLimit: header('RateLimit'),
  'RateLimit-Policy': header('RateLimitPolicy'),
};

/** `image-convert` → `ImageConvert`; `docs/assets` → `DocsAssets`. */
const pascalCase = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

const camelCase = (name: string) => {
  const pascal = pascalCase(name);
  return pascal[0]!.toLowerCase() + pascal.slice(1);
};

function pathParameters(path: string): JsonSchema[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

function errorResponse(status: number, codes: readonly ErrorCode[]): JsonSchema {
  return {
    description: `${statusNames[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
    headers:
      status === 429 ? { 'Retry-After': header('RetryAfter'), ...everyAnswerHeaders } : everyAnswerHeaders,
    content: {
      'application/json': {
        schema: { allOf: [ref('ErrorBody'), { type: 'object', properties: { error: { enum: codes } } }] },
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

/** The answer of each status whose only code is `code`, shared by every operation that gives it. */
function singleCodeResponses(codes: Iterable<ErrorCode>): Record<string, JsonSchema> {
  return Object.fromEntries(
    [...codes].sort().map((code) => [pascalCase(code), errorResponse(errorStatus[code], [code])]),
  );
}

/** One example per error code, shared by every operation that answers with it. */
function errorExamples(codes: Iterable<ErrorCode>): Record<string, JsonSchema> {
  return Object.fromEntries(
    [...codes].sort().map((code) => [
      code,
      {
        summary: code,
        description: errorMeanings[code].meaning,
        value: { error: code, message: errorMeanings[code].message },
      },
    ]),
  );
}

/**
 * What a document answer holds once read as its media type says: a YAML answer (this description,
 * `GET /openapi.yaml`) is an object to a client that parses YAML. Text (HTML, CSS, scripts) stays a
 * string.
 */
const documentSchemas: Record<string, JsonSchema> = {
  'application/yaml': {
    type: 'object',
    description: 'An OpenAPI 3.1 document (this one).',
    properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
    required: ['openapi', 'info', 'paths'],
  },
};

function successResponse(route: RouteSpec, name: string, registry: SchemaRegistry): JsonSchema {
  if (route.response && route.kind !== 'file') {
    return {
      description: 'OK',
      headers: everyAnswerHeaders,
      content: {
        'application/json': {
          schema: registry.add(`${name}Response`, route.response, 'output'),
          ...(route.responseExample ? { example: route.responseExample } : {}),
        },
      },
    };
  }
  if (route.produces?.length) {
    const isFile = route.kind === 'file';
    // A file route that may also answer JSON (a waveform's peaks) documents that answer's schema.
    const schemaOf = (type: string) =>
      isFile && route.response && type.startsWith('application/json')
        ? registry.add(`${name}Response`, route.response, 'output')
        : isFile
          ? { type: 'string', format: 'binary' }
          : (documentSchemas[type] ?? { type: 'string' });
    return {
      description: isFile
        ? 'The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent.'
        : `The document itself (${route.produces.join(', ')}).`,
      headers: isFile
        ? {
            'Content-Disposition': header('ContentDisposition'),
            'Content-Length': header('ContentLength'),
            ...Object.fromEntries(
              Object.entries(route.fileHeaders ?? {}).map(([name, { description, type }]) => [
                name,
                { description, schema: { type } },
              ]),
            ),
            ...everyAnswerHeaders,
          }
        : everyAnswerHeaders,
      content: {
        ...Object.fromEntries(route.produces.map((type) => [type, { schema: schemaOf(type) }])),
        // With outputUrl the file goes there, and the answer says where.
        ...(isAsyncCapable(route) && !route.produces.includes('application/json')
          ? { 'application/json': { schema: registry.add('OutputSent', outputSent, 'output') } }
          : {}),
      },
    };
  }
  return { description: 'OK', headers: everyAnswerHeaders };
}

/** One `example`, or, with named ones, `examples` (OpenAPI allows one of the two), `example` first. */
function requestExamples(route: RouteSpec): JsonSchema {
  if (!route.moreExamples) return route.example ? { example: route.example } : {};
  const named = Object.entries(route.moreExamples).map(([key, { summary, body }]) => [
    key,
    { summary, value: body },
  ]);
  const typical = route.example ? [['typical', { summary: 'A typical request', value: route.example }]] : [];
  return { examples: Object.fromEntries([...typical, ...named]) };
}

/**
 * The request body, a component of `components.requestBodies` named `<Operation>Request`, its
 * schema in place rather than under `components.schemas`: generators such as openapi-typescript
 * type a field with a default as optional in a request body, but as always present in a schema
 * component (an answer's view), which would make callers send every defaulted field.
 */
function requestBody(route: RouteSpec, name: string, registry: SchemaRegistry): JsonSchema | undefined {
  const body = documentedBody(route);
  if (!body) return undefined;
  return {
    required: true,
    content: {
      'application/json': {
        schema: registry.convert(`${name}Request`, body, 'input'),
        ...requestExamples(route),
      },
    },
  };
}

function operation(
  route: RouteSpec,
  registry: SchemaRegistry,
): { operation: JsonSchema; codes: ErrorCode[]; requestBody?: [string, JsonSchema] } {
  const name = pascalCase(route.function);
  const asyncCapable = isAsyncCapable(route);
  const codes = routeErrors(route, asyncCapable ? asyncJobErrors : []);
  const description = [route.description, asyncCapable ? asyncJobsNote(route) : undefined]
    .filter(Boolean)
    .join('\n\n');
  const parameters = [...pathParameters(route.path), ...(asyncCapable ? [idempotencyKeyParameter] : [])];
  const body = requestBody(route, name, registry);
  const bodyName = `${name}Request`;

  const success = successResponse(route, name, registry);
  const responses: Record<string, JsonSchema> = route.created
    ? { '201': { ...success, description: 'Created' } }
    : { '200': success };
  if (asyncCapable) {
    responses['202'] = {
      description: 'Accepted as an async job (only with `callbackUrl`).',
      headers: everyAnswerHeaders,
      content: { 'application/json': { schema: registry.add('JobAccepted', jobAccepted, 'output') } },
    };
  }
  for (const [status, group] of byStatus(codes)) {
    // A status with one code is the same answer everywhere: a shared component.
    responses[String(status)] =
      group.length === 1
        ? { $ref: `#/components/responses/${pascalCase(group[0]!)}` }
        : errorResponse(status, group);
  }

  return {
    codes,
    ...(body ? { requestBody: [bodyName, body] as [string, JsonSchema] } : {}),
    operation: {
      operationId: camelCase(route.function),
      summary: route.summary,
      ...(description ? { description } : {}),
      tags: [route.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: { $ref: `#/components/requestBodies/${bodyName}` } } : {}),
      responses,
    },
  };
}

/** Whether any request body of the table names a source to download. */
function downloadsSources(requestBodies: Record<string, JsonSchema>): boolean {
  return Object.values(requestBodies).some((body) =>
    propertyNames(
      ((body.content as Record<string, JsonSchema>)['application/json']?.schema ?? {}) as JsonSchema,
    ).some((field) => field === 'sourceUrl' || field === 'sources'),
  );
}

/**
 * The OpenAPI 3.1 description of exactly the routes of the table: request bodies from their zod
 * schemas as clients write them, answers as the service sends them, and every error each route can
 * answer with, besides the conventions of the whole API in `info.description`.
 */
export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  options: DocumentOptions,
): OpenApiDocument {
  const registry = new SchemaRegistry();
  registry.add('ErrorBody', errorBody, 'input');
  const paths: OpenApiDocument['paths'] = {};
  const codes = new Set<ErrorCode>();
  const alone = new Set<ErrorCode>();
  const requestBodies: Record<string, JsonSchema> = {};
  for (const route of routes) {
    const described = operation(route, registry);
    if (described.requestBody) requestBodies[described.requestBody[0]] = described.requestBody[1];
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: described.operation };
    for (const code of described.codes) codes.add(code);
    for (const group of byStatus(described.codes).values()) if (group.length === 1) alone.add(group[0]!);
  }
  const tags = [...new Set(routes.map((route) => route.tag))];
  const jobTiers = routes.some((route) => route.path === '/jobs/{jobId}') ? asyncJobTiers(routes) : [];

  return {
    openapi: '3.1.0',
    info: {
      title: 'File conversion API',
      version: options.version,
      description: apiDescription({
        downloadsSources: downloadsSources(requestBodies),
        asyncJobTiers: jobTiers,
        errorCodes: [...new Set([...codes, ...gatewayErrors])],
      }),
      license: { name: options.license },
    },
    servers: [
      { url: 'http://127.0.0.1:3000', description: 'The local gateway (npm start)' },
      {
        url: 'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: 'A deployment on AWS API Gateway (the stack prints its URL)',
        variables: {
          restApiId: { default: 'abcdef1234', description: 'The REST API id.' },
          region: { default: 'us-east-1' },
          stage: { default: 'prod' },
        },
      },
    ],
    security: [{}, { ApiKey: [] }, { ApiKey: [], MarketplaceProxySecret: [] }],
    tags: tags.map((name) => ({ name, description: tagDescriptions[name] })),
    paths,
    components: {
      ...components,
      schemas: registry.schemas,
      requestBodies,
      responses: singleCodeResponses(alone),
      examples: errorExamples(codes),
    },
  };
}
