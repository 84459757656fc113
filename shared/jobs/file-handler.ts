import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import type { Context } from 'aws-lambda';
import type * as z from 'zod';
import { scopeOf } from '#shared/http/middleware.ts';
import { type FileResult, fileResponse } from '#shared/http/respond.ts';
import { inputFor, type PostRoute, postStack, runWork, type Work } from '#shared/http/stack.ts';
import { withCallback } from '#shared/jobs/callback.ts';
import { isJobEvent } from '#shared/jobs/job-event.ts';
import { openStage } from '#shared/stages.ts';

declare const awslambda: { streamifyResponse<T>(handler: T): T };

type StreamingHandler = (
  event: unknown,
  responseStream: NodeJS.WritableStream,
  context: Context,
) => Promise<void>;

/**
 * A POST route whose answer is a converted file, streamed from the request's workspace through
 * Lambda response streaming. With `callbackUrl` the same work runs as an async job: the request
 * is answered 202 and the function invokes itself with a job event.
 */
export function createFileHandler<S extends z.ZodObject>(
  route: PostRoute<S>,
  work: Work<z.infer<S>, FileResult>,
) {
  // A row that names no tiers for async jobs takes none.
  const needs = route.tierNeeds ?? { asyncJobs: [] };
  const stack = postStack({ ...route, body: withCallback(route.body) }, executionModeStreamifyResponse);
  const http = stack.handler(async (event, context, { signal }) => {
    const input = inputFor<z.infer<S> & { callbackUrl?: string }>(event, signal, context);
    const { callbackUrl, ...body } = input.body;
    if (callbackUrl !== undefined) {
      // Jobs and their AWS SDK clients load on the first request that needs them, not at init.
      const { acceptJob } = await import('#shared/jobs/accept.ts');
      return acceptJob(route.function, needs, body, callbackUrl, input.caller);
    }
    const file = await runWork(work, { ...input, body: body as z.infer<S> }, event);
    // The answer is streamed after the handler returns; the request's end closes the stage.
    const scope = scopeOf(event);
    scope.endUpload = openStage('upload', scope.stages);
    return fileResponse(file);
  }) as unknown as StreamingHandler;

  return awslambda.streamifyResponse<StreamingHandler>(async (event, responseStream, context) => {
    if (!isJobEvent(event)) return http(event, responseStream, context);
    const endsAt = Date.now() + context.getRemainingTimeInMillis();
    const { runJob } = await import('#shared/jobs/run.ts');
    await runJob(event.job.jobId, work as Parameters<typeof runJob>[1], endsAt);
    responseStream.end();
  });
}
