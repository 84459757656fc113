import type { Caller } from '#shared/auth/authorize.ts';
import { config } from '#shared/config.ts';
import { ApiError } from '#shared/errors.ts';
import { type HttpResponse, jsonResponse } from '#shared/http/respond.ts';
import { dispatchJob } from '#shared/jobs/dispatch.ts';
import { queuedJob } from '#shared/jobs/record.ts';
import { saveJob } from '#shared/jobs/store.ts';
import type { TierNeeds } from '#shared/routes/types.ts';
import { assertHttpUrl, resolveCheckedAddress } from '#shared/source/address.ts';
import { tierList } from '#shared/tiers.ts';

/** The callback URL is checked like a source: https (http only where private sources are allowed), public address. */
async function assertCallbackUrl(raw: string): Promise<void> {
  const url = assertHttpUrl(raw, 'callbackUrl');
  if (url.protocol !== 'https:' && !config.SOURCE_ALLOW_PRIVATE) {
    throw new ApiError('source_invalid_url', 'callbackUrl must be an https URL.');
  }
  await resolveCheckedAddress(url, { allowPrivate: config.SOURCE_ALLOW_PRIVATE });
}

/** Whether the caller's tier may run the route as an async job, by the route's tier needs. */
export function assertMayRunJobs(caller: Caller, needs: TierNeeds): void {
  const plural = needs.asyncJobs.length > 1 ? 's' : '';
  const allowed = `Async jobs are for the ${tierList(needs.asyncJobs)} tier${plural}`;
  if (!caller.keyed) throw new ApiError('missing_api_key', `${allowed}; send an x-api-key.`);
  if (!needs.asyncJobs.includes(caller.tier)) {
    throw new ApiError('insufficient_permissions', `${allowed}; this key is of the ${caller.tier} tier.`);
  }
}

/** Accepts a file request as an async job: record it, start it apart, answer 202 at once. */
export async function acceptJob(
  route: string,
  needs: TierNeeds,
  request: unknown,
  callbackUrl: string,
  caller: Caller,
): Promise<HttpResponse> {
  assertMayRunJobs(caller, needs);
  await assertCallbackUrl(callbackUrl);
  const record = queuedJob(route, request, callbackUrl, caller);
  await saveJob(record);
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
  return jsonResponse(202, { jobId: record.jobId, status: 'queued', statusUrl: `/jobs/${record.jobId}` });
}
