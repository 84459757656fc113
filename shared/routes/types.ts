import type * as z from 'zod';
import type { ErrorCode } from '#shared/errors.ts';
import type { FunctionSizing } from '#shared/routes/sizing.ts';
import type { TierName } from '#shared/tiers.ts';

/** What a route needs of the caller's tier, beyond the limits every tier sets. */
export interface TierNeeds {
  /** The tiers that may run the route as an async job (with `callbackUrl`). */
  asyncJobs: readonly TierName[];
}

/** What every file route needs: async jobs are for paid tiers (API.md, "Authentication and tiers", rule 4). */
export const fileRouteNeeds: TierNeeds = { asyncJobs: ['pro', 'enterprise'] };

/** The categories of `GET /formats`, in the order it lists them. */
export const formatCategoryNames = ['image', 'pdf', 'document', 'audio', 'video', 'text', 'crypto'] as const;
export type FormatCategoryName = (typeof formatCategoryNames)[number];

/**
 * What a conversion or utility route reads and writes, for `GET /formats`. Its enumerated options
 * are read from the request schema. Pseudo-formats: `json` is a JSON answer, `text` a string field
 * of the JSON request, `zip` several files in one archive, `file` any bytes at all.
 */
export interface RouteFormats {
  categories: readonly FormatCategoryName[];
  inputs: readonly string[];
  outputs: readonly string[];
}

/**
 * One row of the route table. The handlers, the CDK stack, the local gateway, `GET /formats` and
 * openapi.yaml are all derived from these rows; nothing lists the routes a second time. A row
 * imports no engine: its function folder is the lazy reference to the work, loaded only by the
 * function itself.
 */
export interface RouteSpec<Body extends z.ZodType | undefined = z.ZodType | undefined> {
  method: 'GET' | 'POST';
  /** API Gateway resource path, e.g. `/image-convert` or `/jobs/{jobId}`. */
  path: string;
  /** Folder under functions/ whose handler.ts serves the route (its work function). */
  function: string;
  /** json: buffered JSON answer; file: streamed file answer (async-capable); system: GET route. */
  kind: 'json' | 'file' | 'system';
  /** The function's memory, timeout and /tmp, in Lambda and in the local gateway's workers. */
  sizing: FunctionSizing;
  /**
   * What the function needs of the job store: file routes run jobs, `/jobs/{jobId}` reads them,
   * `/uploads` presigns uploads into it.
   */
  jobStore?: 'run' | 'read' | 'upload';
  /** A POST route whose success creates something: answered 201 instead of 200. */
  created?: true;
  tag: 'System' | 'Image' | 'PDF' | 'Media' | 'Text' | 'Crypto' | 'Jobs' | 'Documents' | 'Codes' | 'OCR';
  summary: string;
  description?: string;
  /** Request body schema (POST routes): a strict zod object. */
  body?: Body;
  /** JSON answer schema, for the documentation. */
  response?: z.ZodType;
  /** Content types a file answer may have. */
  produces?: readonly string[];
  /** Headers a file answer may carry beside the ones every file answer has, for the documentation. */
  fileHeaders?: Readonly<Record<string, { description: string; type: 'integer' | 'string' }>>;
  /** What the route converts, for `GET /formats`; every POST route has it. */
  formats?: RouteFormats;
  /** A working request body, shown in the docs and README. */
  example?: Record<string, unknown>;
  /**
   * Further working request bodies by name, for the options `example` leaves out; openapi.yaml
   * shows them with `example` (named `typical`) as its `examples`.
   */
  moreExamples?: Record<string, NamedExample>;
  /**
   * The JSON answer to `example`, shown as the 200 example. A test runs `example` through the
   * handler and compares: exactly, or by schema where the answer holds random values.
   */
  responseExample?: Record<string, unknown>;
  /** What the route needs of the caller's tier; file routes hold `fileRouteNeeds`. */
  tierNeeds?: TierNeeds;
  /**
   * Not counted against the caller's rate limit or usage plan: the API reference page and the
   * document it reads, so that reading the docs never spends the quota (the local gateway skips
   * its count, the stack's WAF rule and usage plans leave these paths out).
   */
  quotaFree?: true;
  /** The error codes this route can answer with, besides the ones every route shares. */
  errors: readonly ErrorCode[];
}

/** The name a route's requests are logged and measured under: its function folder, dashed. */
export const routeName = (route: Pick<RouteSpec, 'function'>) => route.function.replaceAll('/', '-');

/** Declares a row, keeping its body schema's type for the handler that serves it. */
export function defineRoute<S extends z.ZodType>(row: RouteSpec<S> & { body: S }): RouteSpec<S> & { body: S };
export function defineRoute(row: RouteSpec<undefined>): RouteSpec<undefined>;
export function defineRoute(row: RouteSpec): RouteSpec {
  return row;
}

/** A request body with a one-line summary of what it shows. */
export interface NamedExample {
  summary: string;
  body: Record<string, unknown>;
}

/** What downloading a `sourceUrl` can answer (API.md "Source download", rules 1–6). */
export const downloadErrors: readonly ErrorCode[] = [
  'source_invalid_url',
  'source_redirect',
  'source_bad_status',
  'source_blocked_address',
  'source_unreachable',
  'source_timeout',
  'source_too_large',
];

/** Downloading a source and reading its format (rule 7 added). */
export const sourceErrors: readonly ErrorCode[] = [
  ...downloadErrors,
  'unsupported_input_format',
  'invalid_source_file',
];
