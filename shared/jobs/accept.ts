import { randomBytes } from 'node:crypto';
import type { Caller } from '#shared/auth/authorize.ts';
import { config } from '#shared/config.ts';
import { HttpError } from '#shared/http/errors.ts';
import { type HttpResponse, jsonResponse } from '#shared/http/respond.ts';
import { dispatchJob } from '#shared/jobs/dispatch.ts';
import type { JobRecord } from '#shared/jobs/record.ts';
import { saveJob } from '#shared/jobs/store.ts';
import { assertHttpUrl, resolveCheckedAddress } from '#shared/source/address.ts';
import { tiers, tierThatLifts } from '#shared/tiers.ts';

/** The callback URL is checked like a source: https (http only where private sources are allowed), public address. */
async function assertCallbackUrl(raw: string): Promise<void> {
  const url = assertHttpUrl(raw, 'callbackUrl');
  if (url.protocol !== 'https:' && !config.SOURCE_ALLOW_PRIVATE) {
    throw new HttpError('source_invalid_url', 'callbackUrl must be an https URL.');
  }
  await resolveCheckedAddress(url, { allowPrivate: config.SOURCE_ALLOW_PRIVATE });
}

/** Accepts a file request as an async job: record it, start it apart, answer 202 at once. */
export async function acceptJob(
  route: string,
  request: unknown,
  callbackUrl: string,
  caller: Caller,
): Promise<HttpResponse> {
  if (!caller.keyed)
    throw new HttpError('missing_api_key', 'Async jobs need an x-api-key of the pro or enterprise tier.');
  if (!tiers[caller.tier].asyncJobs) {
    const lift = tierThatLifts((limits) => limits.asyncJobs);
    throw new HttpError('insufficient_permissions', `Async jobs need the ${lift} tier or higher.`);
  }
  await assertCallbackUrl(callbackUrl);
  const record: JobRecord = {
    jobId: randomBytes(18).toString('base64url'),
    status: 'queued',
    progress: 0,
    createdAt: new Date().toISOString(),
    owner: caller.callerId,
    tier: caller.tier,
    requestsPerMinute: caller.requestsPerMinute,
    route,
    callbackUrl,
    request,
  };
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
