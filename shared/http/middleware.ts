import { randomUUID } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod';
import type { Caller } from '#shared/auth/authorize.ts';
import { callerFromEvent } from '#shared/auth/caller.ts';
import { ApiError, toPublicError } from '#shared/errors.ts';
import { assertJsonContentType, assertWellFormedText, decodeUtf8Body } from '#shared/http/body-text.ts';
import { statusOf } from '#shared/http/errors.ts';
import { corsHeaders, lowerCaseHeaders } from '#shared/http/headers.ts';
import { type HttpResponse, jsonResponse } from '#shared/http/respond.ts';
import { parseOrThrow } from '#shared/http/validation.ts';
import { log, logRequest } from '#shared/log.ts';
import { type StageTimes, stageFields } from '#shared/stages.ts';
import { Workspace } from '#shared/workspace.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** What one request carries through the stack. */
export interface Scope {
  requestId: string;
  route: string;
  startedAt: number;
  caller: Caller;
  workspace: Workspace;
  body: unknown;
  /** The request body's size as received, and the time of each stage (for the request line). */
  bytesIn: number;
  stages: StageTimes;
  /** Ends the upload stage of a streamed file answer, once its last byte is sent. */
  endUpload?: () => void;
  /** The `error` code of the answer, when it is an error. */
  errorCode?: string;
}

type MiddyRequest = Request<APIGatewayProxyEvent, HttpResponse>;

const scopes = new WeakMap<object, Scope>();

export function scopeOf(event: object): Scope {
  const scope = scopes.get(event);
  if (!scope) throw new Error('request scope missing: is requestScope() the first middleware?');
  return scope;
}

/** Request id, caller, workspace; headers every answer carries. Must be the first middleware. */
export function requestScope(route: string): MiddlewareObj<APIGatewayProxyEvent, HttpResponse> {
  const addHeaders = (request: MiddyRequest) => {
    const response = request.response;
    if (!response) return;
    const scope = scopes.get(request.event);
    response.headers = { ...response.headers, ...corsHeaders, 'X-Request-Id': scope?.requestId ?? 'unknown' };
  };
  return {
    before: (request) => {
      const event = request.event;
      event.headers = lowerCaseHeaders(event.headers) as APIGatewayProxyEvent['headers'];
      scopes.set(event, {
        requestId: event.requestContext?.requestId ?? randomUUID(),
        route,
        startedAt: performance.now(),
        caller: callerFromEvent(event),
        workspace: new Workspace(),
        body: undefined,
        bytesIn: event.body ? Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : 0,
        stages: {},
      });
    },
    after: addHeaders,
    onError: addHeaders,
  };
}

/**
 * Content type, size and emptiness checks before JSON parsing. Base64 bodies (API Gateway with
 * binary media types) are decoded here so that the size limit applies to the real bytes.
 */
export function jsonBodyGuard(): MiddlewareObj<APIGatewayProxyEvent, HttpResponse> {
  return {
    before: ({ event }) => {
      assertJsonContentType(event.headers['content-type'] ?? '');
      if (!event.isBase64Encoded) assertWellFormedText(event.body ?? '');
      const raw = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      if (raw.length > MAX_BODY_BYTES) {
        throw new ApiError('request_too_large', `The request body is over ${MAX_BODY_BYTES} bytes.`);
      }
      const text = decodeUtf8Body(raw);
      // An empty body means "no fields": routes whose fields are all optional take their defaults.
      event.body = text.trim() === '' ? '{}' : text;
      event.isBase64Encoded = false;
    },
  };
}

/** Validates the parsed body against the route's strict zod schema. */
export function validateBody(schema: z.ZodType): MiddlewareObj<APIGatewayProxyEvent, HttpResponse> {
  return {
    before: ({ event }) => {
      scopeOf(event).body = parseOrThrow(schema, event.body);
    },
  };
}

/** The only place where errors become answers. Nothing internal reaches the client. */
export function errorResponses(): MiddlewareObj<APIGatewayProxyEvent, HttpResponse> {
  return {
    onError: (request) => {
      const scope = scopes.get(request.event);
      const requestId = scope?.requestId ?? 'unknown';
      const error = fromMiddyError(request.error);
      const publicError = toPublicError(error, requestId);
      if (scope) scope.errorCode = publicError.code;
      if (statusOf(publicError) >= 500) {
        const cause = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log('error', 'request failed', { requestId, route: scope?.route, cause });
      }
      request.response = jsonResponse(statusOf(publicError), publicError.toJSON());
    },
  };
}

/** @middy/http-json-body-parser answers 415 and 422 with its own errors; give them our codes. */
function fromMiddyError(error: unknown): unknown {
  const statusCode = (error as { statusCode?: number } | null)?.statusCode;
  if (error instanceof ApiError || statusCode === undefined) return error;
  if (statusCode === 415)
    return new ApiError('unsupported_media_type', 'Send the request body as application/json.');
  if (statusCode === 422) {
    // The parser refuses prototype keys (`__proto__`, `constructor.prototype`) while it reads:
    // the JSON is valid, the field is not one of ours.
    const key = forbiddenKeyOf(error);
    if (key !== undefined) {
      return new ApiError('validation_failed', `${key}: unknown field`, { cause: error });
    }
    return new ApiError('invalid_json', 'The request body is not valid JSON.', { cause: error });
  }
  return error;
}

function forbiddenKeyOf(error: unknown): string | undefined {
  const { message, cause } = error as { message?: unknown; cause?: { data?: unknown } };
  if (message !== 'Forbidden key in JSON body') return undefined;
  return typeof cause?.data === 'string' ? cause.data : '__proto__';
}

/** Logs one line per request and removes its workspace, after the answer has been sent. */
export async function endRequest(request: Request): Promise<void> {
  const scope = scopes.get(request.event as object);
  if (!scope) return;
  scope.endUpload?.();
  await scope.workspace.dispose();
  const response = request.response as HttpResponse | null | undefined;
  const status = response?.statusCode ?? 500;
  logRequest({
    requestId: scope.requestId,
    route: scope.route,
    tier: scope.caller.tier,
    status,
    errorCode: scope.errorCode ?? (status >= 400 ? errorCodeOf(response?.body) : undefined),
    durationMs: Math.round(performance.now() - scope.startedAt),
    bytesIn: scope.bytesIn,
    bytesOut: bytesOutOf(response),
    ...stageFields(scope.stages),
  });
}

function bytesOutOf(response: HttpResponse | null | undefined): number | undefined {
  const length = response?.headers?.['Content-Length'];
  if (length !== undefined) return Number(length);
  return typeof response?.body === 'string' ? Buffer.byteLength(response.body) : undefined;
}

/** The code of an error answer a work function built itself (not thrown). */
function errorCodeOf(body: unknown): string {
  try {
    const { error } = JSON.parse(String(body)) as { error?: unknown };
    return typeof error === 'string' ? error : 'unknown';
  } catch {
    return 'unknown';
  }
}
