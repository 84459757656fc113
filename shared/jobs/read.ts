import type { Caller } from '#shared/auth/authorize.ts';
import { ApiError } from '#shared/errors.ts';
import { failIfAbandoned, isExpired, type JobView, publicView } from '#shared/jobs/record.ts';
import { loadJob, resultUrl } from '#shared/jobs/store.ts';

const JOB_ID = /^[A-Za-z0-9_-]{24}$/;

/** A job as its owner sees it; anyone else, and expired jobs, get 404 as if it never existed. */
export async function readJob(jobId: string, caller: Caller): Promise<JobView> {
  if (!caller.keyed)
    throw new ApiError('missing_api_key', 'Jobs are read with the x-api-key that created them.');
  const notFound = new ApiError(
    'not_found',
    `No job ${JOB_ID.test(jobId) ? jobId : ''} for this key.`.replace('  ', ' '),
  );
  if (!JOB_ID.test(jobId)) throw notFound;
  const record = await loadJob(jobId);
  if (!record || record.owner !== caller.callerId || isExpired(record)) throw notFound;
  const current = failIfAbandoned(record);
  return publicView(current, await resultUrl(current));
}
