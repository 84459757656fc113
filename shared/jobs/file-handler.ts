import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import type { Context } from 'aws-lambda';
import type * as z from 'zod';
import { scopeOf } from '#shared/http/middleware.ts';
import { type FileResult, fileResponse, jsonResponse } from '#shared/http/respond.ts';
import { inputFor, type PostRoute, postStack, runWork, type Work } from '#shared/http/stack.ts';
import { withCallback } from '#shared/jobs/callback.ts';
import { isJobEvent } from '#shared/jobs/job-event.ts';
import { measureStages, openStage } from '#shared/stages.ts';

declare const awslambda: { streamifyResponse<T>(handler: T): T };

type StreamingHandler = (
  event: unknown,
  responseStream: NodeJS.WritableStream,
  context: Context,
) => Promise<void>;

/**
 * A POST route whose answer is a converted file, streamed from the request's workspace through
 * Lambda response streaming. With `callbackUrl` the same work runs as an async job: the request
 * is answered 202 and the function invokes itself with a job event (an `Idempotency-Key` header
 * makes a retried request answer the first job). With `outputUrl` the file is sent there with PUT
 * instead, and the answer says where it went; with both, the job's result goes there.
 */
export function createFileHandler<S extends z.ZodObject>(
  route: PostRoute<S>,
  work: Work<z.infer<S>, FileResult>,
) {
  // A row that names no tiers for async jobs takes none.
  const needs = route.tierNeeds ?? { asyncJobs: [] };
  const stack = postStack({ ...route, body: withCallback(route.body) }, executionModeStreamifyResponse);
  const http = stack.handler(async (event, context, { signal }) => {
    const input = inputFor<z.infer<S> & { callbackUrl?: string; outputUrl?: string }>(event, signal, context);
    const { callbackUrl, outputUrl, ...body } = input.body;
    if (callbackUrl !== undefined) {
      // Jobs and their AWS SDK clients load on the first request that needs them, not at init.
      const { acceptJob } = await import('#shared/jobs/accept.ts');
      const job = { callbackUrl, outputUrl, headers: event.headers };
      return acceptJob(route.function, needs, body, job, input.caller);
    }
    if (outputUrl !== undefined) {
      const { assertMayExport, sendToOutputUrl } = await import('#shared/jobs/export.ts');
      await assertMayExport(outputUrl, input.caller, needs);
      const file = await runWork(work, { ...input, body: body as z.infer<S> }, event);
      const sent = await measureStages(scopeOf(event).stages, () =>
        sendToOutputUrl(file, outputUrl, { deadline: input.deadline, signal }),
      );
      return jsonResponse(200, sent);
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
