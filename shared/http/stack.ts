import middy, { type PluginExecutionMode } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type * as z from 'zod';
import type { Caller } from '#shared/auth/authorize.ts';
import {
  endRequest,
  errorResponses,
  jsonBodyGuard,
  requestScope,
  scopeOf,
  validateBody,
} from '#shared/http/middleware.ts';
import { type HttpResponse, jsonResponse } from '#shared/http/respond.ts';
import { type RouteSpec, routeName } from '#shared/routes/types.ts';
import type { SourceRequest } from '#shared/source/request.ts';
import { measureStages, stage } from '#shared/stages.ts';
import { type TierLimits, tiers } from '#shared/tiers.ts';
import type { Workspace } from '#shared/workspace.ts';

/** What a route's work function is given: the validated body and the request's context. */
export interface CallInput<Body> extends SourceRequest {
  body: Body;
  caller: Caller;
  limits: TierLimits;
  requestId: string;
  workspace: Workspace;
  signal: AbortSignal;
  /**
   * When the request must have answered (epoch ms): Lambda stops the function then. What waits on
   * others, such as a source download, gives up before it, so the caller hears why. An async job
   * has none: its work is bounded by `signal`.
   */
  deadline?: number | undefined;
  /** Path parameters, e.g. `{ jobId }` for `/jobs/{jobId}`. */
  params: Record<string, string>;
  /** Reports percent done (0–100); async jobs publish it, synchronous calls ignore it. */
  onProgress: (percent: number) => void;
}

export type Work<Body, Result> = (input: CallInput<Body>) => Promise<Result> | Result;

export function inputFor<Body>(
  event: APIGatewayProxyEvent,
  signal: AbortSignal,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): CallInput<Body> {
  const scope = scopeOf(event);
  return {
    body: scope.body as Body,
    caller: scope.caller,
    limits: { ...tiers[scope.caller.tier], requestsPerMinute: scope.caller.requestsPerMinute },
    requestId: scope.requestId,
    workspace: scope.workspace,
    signal,
    deadline: Date.now() + context.getRemainingTimeInMillis(),
    params: Object.fromEntries(
      Object.entries(event.pathParameters ?? {}).filter(([, v]) => v !== undefined),
    ) as Record<string, string>,
    onProgress: () => {},
  };
}

/** Runs a request's work as its engine stage, timed into the request's scope (and traced in Lambda). */
export function runWork<Body, Result>(
  work: Work<Body, Result>,
  input: CallInput<Body>,
  event: APIGatewayProxyEvent,
): Promise<Result> {
  return measureStages(scopeOf(event).stages, () => stage('engine', () => work(input)));
}

/** A row whose body schema the handler validates. */
export type PostRoute<S extends z.ZodType> = RouteSpec<S> & { body: S };

/**
 * The middy stack of a POST route: scope, errors, the JSON body read and checked against the row's
 * schema (jsonBodyGuard checks the media type, charset included, so the parser does not). File
 * routes pass middy's streaming mode, so its stream modules stay out of the JSON routes' bundles.
 */
export function postStack(route: RouteSpec & { body: z.ZodType }, executionMode?: PluginExecutionMode) {
  return middy<APIGatewayProxyEvent, HttpResponse>({
    requestEnd: endRequest,
    ...(executionMode ? { executionMode } : {}),
  })
    .use(requestScope(routeName(route)))
    .use(errorResponses())
    .use(jsonBodyGuard())
    .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
    .use(validateBody(route.body));
}

/** A POST route that answers JSON (buffered): 200, or 201 for a row that creates something. */
export function createJsonHandler<S extends z.ZodType>(route: PostRoute<S>, work: Work<z.infer<S>, unknown>) {
  const status = route.created ? 201 : 200;
  return postStack(route).handler(async (event, context, { signal }) =>
    jsonResponse(status, await runWork(work, inputFor(event, signal, context), event)),
  );
}

/** A GET route; the work function builds the whole answer. */
export function createGetHandler(route: RouteSpec, work: Work<undefined, HttpResponse>) {
  return middy<APIGatewayProxyEvent, HttpResponse>({ requestEnd: endRequest })
    .use(requestScope(routeName(route)))
    .use(errorResponses())
    .handler(async (event, context, { signal }) => work(inputFor(event, signal, context)));
}
