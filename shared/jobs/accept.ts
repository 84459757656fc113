import type { Caller } from '#shared/auth/authorize.ts';
import { ApiError } from '#shared/errors.ts';
import { type HttpResponse, jsonResponse } from '#shared/http/respond.ts';
import { assertDestinationUrl } from '#shared/jobs/destination.ts';
import { dispatchJob } from '#shared/jobs/dispatch.ts';
import {
  claimIdempotencyKey,
  idempotencyKeyOf,
  releaseIdempotencyKey,
  requestHash,
} from '#shared/jobs/idempotency.ts';
import { queuedJob } from '#shared/jobs/record.ts';
import { saveJob } from '#shared/jobs/store.ts';
import type { TierNeeds } from '#shared/routes/types.ts';
import { tierList } from '#shared/tiers.ts';

/** Whether the caller's tier may use a paid feature (async jobs, uploads, exports), by the route's tier needs. */
export function assertMayUse(caller: Caller, needs: TierNeeds, feature = 'Async jobs'): void {
  const plural = needs.asyncJobs.length > 1 ? 's' : '';
  const allowed = `${feature} are for the ${tierList(needs.asyncJobs)} tier${plural}`;
  if (!caller.keyed) throw new ApiError('missing_api_key', `${allowed}; send an x-api-key.`);
  if (!needs.asyncJobs.includes(caller.tier)) {
    throw new ApiError('insufficient_permissions', `${allowed}; this key is of the ${caller.tier} tier.`);
  }
}

/** Whether the caller's tier may run the route as an async job, by the route's tier needs. */
export const assertMayRunJobs = (caller: Caller, needs: TierNeeds) => assertMayUse(caller, needs);

/** What a job request carries besides its body. */
export interface JobRequest {
  callbackUrl: string;
  outputUrl?: string | undefined;
  /** The request's headers (lower-cased names), for `Idempotency-Key`. */
  headers?: Record<string, string | undefined> | null;
}

const accepted = (jobId: string) =>
  jsonResponse(202, { jobId, status: 'queued', statusUrl: `/jobs/${jobId}` });

/**
 * Accepts a file request as an async job: record it, start it apart, answer 202 at once. With an
 * Idempotency-Key, the same request from the same API key within 24 h answers the first job's 202
 * again, without a second job.
 */
export async function acceptJob(
  route: string,
  needs: TierNeeds,
  request: unknown,
  job: JobRequest,
  caller: Caller,
): Promise<HttpResponse> {
  assertMayRunJobs(caller, needs);
  const idempotencyKey = idempotencyKeyOf(job.headers ?? null);
  await assertDestinationUrl(job.callbackUrl, 'callbackUrl');
  if (job.outputUrl !== undefined) await assertDestinationUrl(job.outputUrl, 'outputUrl');
  const record = queuedJob(route, request, job.callbackUrl, caller, job.outputUrl);
  if (idempotencyKey !== undefined) {
    const body = { ...(request as object), callbackUrl: job.callbackUrl, outputUrl: job.outputUrl };
    const first = await claimIdempotencyKey(
      caller.callerId,
      idempotencyKey,
      requestHash(route, body),
      record.jobId,
    );
    if (first !== undefined) return accepted(first);
  }
  try {
    await saveJob(record);
  } catch (error) {
    // No job was recorded: the key must not answer with one that does not exist.
    if (idempotencyKey !== undefined)
      await releaseIdempotencyKey(caller.callerId, idempotencyKey).catch(() => {});
    throw error;
  }
  try {
    await dispatchJob(route, record.jobId);
  } catch (error) {
    // Never leave a job queued that nothing will run.
    await saveJob({
      ...record,
      status: 'failed',
      finishedAt: new Date().toISOString(),
      error: { error: 'internal_error', message: 'The job could not be started.' },
    });
    throw error;
  }
  return accepted(record.jobId);
}
