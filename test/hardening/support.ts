import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { vi } from 'vitest';
import type { ErrorCode } from '#shared/errors.ts';
import { errorStatus } from '#shared/http/errors.ts';
import { type RouteSpec, routes } from '#shared/routes.ts';
import { type Answer, call } from '../support/lambda.ts';

/**
 * One seed for every property of the hardening suite, so a run is reproducible; set FUZZ_SEED to
 * explore further (fast-check prints the seed and path of any failure).
 */
export const fuzzSeed = Number(process.env.FUZZ_SEED ?? 20_261_122);

/** The fields through which a request names something to download. */
export const urlFields = ['sourceUrl', 'sources', 'callbackUrl'] as const;

export const postRoutes = (): RouteSpec[] => routes.filter((route) => route.method === 'POST');
export const getRoutes = (): RouteSpec[] => routes.filter((route) => route.method === 'GET');

/** The top-level field names of a route's body schema (a strict zod object), else of its example. */
export function fieldsOf(route: RouteSpec): string[] {
  const shape = (route.body as { shape?: Record<string, unknown> } | undefined)?.shape;
  if (shape && typeof shape === 'object') return Object.keys(shape);
  return Object.keys(route.example ?? {});
}

/** Routes that download something, i.e. whose body has a `sourceUrl` or `sources` field. */
export const downloadingRoutes = (): RouteSpec[] =>
  postRoutes().filter((route) =>
    fieldsOf(route).some((field) => field === 'sourceUrl' || field === 'sources'),
  );

/** The input formats a route's row states (GET /formats lists them); empty when it states none. */
export function acceptedFormats(route: RouteSpec): readonly string[] {
  return route.formats?.inputs ?? [];
}

/**
 * A working body for a route that downloads, with every source pointing at `url`: the route's own
 * example with its URLs replaced, so the rest of the body is valid and only the file is on trial.
 */
export function bodyWithSource(route: RouteSpec, url: string): Record<string, unknown> {
  const body: Record<string, unknown> = { ...(route.example ?? {}) };
  delete body.callbackUrl;
  if ('sourceUrl' in body || fieldsOf(route).includes('sourceUrl')) body.sourceUrl = url;
  if ('sources' in body || fieldsOf(route).includes('sources')) body.sources = [url, url];
  return body;
}

const handlers = new Map<string, unknown>();

/** The route's handler, functions/<row.function>/handler.ts, as the local gateway loads it. */
export async function handlerOf(route: RouteSpec): Promise<unknown> {
  const known = handlers.get(route.function);
  if (known) return known;
  if (!/^[a-z0-9-]+(?:\/[a-z0-9-]+)*$/.test(route.function))
    throw new Error(`bad function ${route.function}`);
  const file = new URL(`../../functions/${route.function}/handler.ts`, import.meta.url).href;
  const { handler } = (await import(/* @vite-ignore */ file)) as { handler: unknown };
  handlers.set(route.function, handler);
  return handler;
}

/** Invokes a handler in-process and fails, naming what was sent, if it takes longer than `ms`. */
export async function callWithin(
  handler: unknown,
  event: APIGatewayProxyEvent,
  ms: number,
  what: string,
): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([call(handler, event), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const systemTmp = tmpdir();

/** Things that must never appear in a message a client reads. */
const internalMarkers = (): RegExp[] => [
  /\n\s*at\s/, // a stack frame
  /\bat\s+\S+\s+\(.*:\d+:\d+\)/, // an inline stack frame
  /file:\/\//,
  /node_modules/,
  /\.ts:\d+/,
  /(?:Type|Reference|Syntax|Range)Error\b/,
  /\bE(?:NOENT|ACCES|PERM|ISDIR)\b/,
  new RegExp(escapeRegExp(process.cwd())),
  new RegExp(escapeRegExp(systemTmp)),
  new RegExp(escapeRegExp(tmpdir())),
  /\bfca-[A-Za-z0-9]{6}\b/,
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Why an answer breaks the contract, or undefined when it keeps it: a 2xx, or a 4xx whose body is
 * exactly `{error, message}` with a known code that fixes that status and a message without
 * internals. 5xx answers (other than a 504 source_timeout, which the fuzzers never provoke) fail.
 */
export function contractBreach(answer: Answer, allowTimeout = false): string | undefined {
  const { statusCode } = answer;
  if (statusCode >= 200 && statusCode < 300) return undefined;
  if (statusCode < 400 || (statusCode >= 500 && !(allowTimeout && statusCode === 504))) {
    return `status ${statusCode}: ${answer.body.toString('utf8').slice(0, 300)}`;
  }
  let body: unknown;
  try {
    body = answer.json();
  } catch {
    return `status ${statusCode} with a body that is not JSON: ${answer.body.toString('utf8').slice(0, 200)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'error body is not an object';
  const keys = Object.keys(body).sort();
  if (keys.join(',') !== 'error,message') return `error body has keys ${keys.join(',')}`;
  const { error, message } = body as { error: unknown; message: unknown };
  if (typeof error !== 'string' || !Object.hasOwn(errorStatus, error)) return `unknown error code ${error}`;
  if (errorStatus[error as ErrorCode] !== statusCode) return `code ${error} came with status ${statusCode}`;
  if (typeof message !== 'string' || message.trim() === '') return 'empty message';
  const marker = internalMarkers().find((pattern) => pattern.test(message));
  if (marker) return `message shows internals (${marker}): ${message.slice(0, 300)}`;
  const contentType = answer.headers['Content-Type'] ?? answer.headers['content-type'];
  if (!String(contentType).startsWith('application/json')) return `error with Content-Type ${contentType}`;
  return undefined;
}

export const errorCodeOf = (answer: Answer): string | undefined => {
  try {
    return (answer.json() as { error?: string }).error;
  } catch {
    return undefined;
  }
};

/** Request workspaces (`fca-` and mkdtemp's six characters) in a folder; the embedded S3's `fca-s3-*` is not one. */
export async function workspacesIn(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => /^fca-[A-Za-z0-9]{6}$/.test(name));
}

/**
 * A private temporary root for this test file: the handlers' workspaces (`fca-*` under
 * os.tmpdir()) land here, so leftovers are ours to count even while other suites run.
 */
export class PrivateTmp {
  dir = '';

  async open(): Promise<this> {
    this.dir = await mkdtemp(join(tmpdir(), 'hardening-'));
    vi.stubEnv('TMPDIR', this.dir);
    return this;
  }

  /** Workspace folders still on disk. */
  leftovers(): Promise<string[]> {
    return workspacesIn(this.dir);
  }

  async close(): Promise<void> {
    vi.unstubAllEnvs();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

/** The live JavaScript heap of this process after a full garbage collection, in MiB. */
export function heapAfterGcMiB(): number {
  // The test process runs without --expose-gc; the flag can still be set now and gc() taken from a
  // fresh context, which then sees it.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** The highest resident size this process has reached so far, in MiB. */
export const peakRssMiB = (): number => process.resourceUsage().maxRSS / 1024;
