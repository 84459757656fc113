import { randomBytes } from 'node:crypto';
import type { Caller } from '#shared/auth/authorize.ts';
import type { ErrorBody } from '#shared/errors.ts';
import type { TierName } from '#shared/tiers.ts';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** What the job store keeps; only `publicView` of it ever leaves the service. */
export interface JobRecord {
  jobId: string;
  status: JobStatus;
  progress: number;
  createdAt: string;
  finishedAt?: string;
  error?: ErrorBody;
  /** callerId of the key that created the job: only it may read the job. */
  owner: string;
  tier: TierName;
  requestsPerMinute: number;
  /** Folder under functions/ whose work runs the job. */
  route: string;
  callbackUrl: string;
  /** Where the result is sent with PUT instead of being kept in the bucket. */
  outputUrl?: string;
  /** The validated request body, without callbackUrl and outputUrl. */
  request: unknown;
  result?: { key: string; fileName: string; contentType: string; sizeBytes: number };
  /** The result as it was sent to outputUrl. */
  output?: OutputView;
  webhook?: { attempts: number; delivered: boolean; lastStatus?: number };
  /**
   * While the job runs, its worker stores the record at least every `HEARTBEAT_MS`. A heartbeat
   * older than `HEARTBEAT_STALE_MS` means the worker is gone: Lambda stopped it without a word (out
   * of memory, the function's timeout).
   */
  heartbeatAt?: string;
}

/** A result sent to outputUrl: the URL without its query, its size and type. */
export interface OutputView {
  outputUrl: string;
  sizeBytes: number;
  contentType: string;
}

export interface JobView {
  jobId: string;
  status: JobStatus;
  progress: number;
  createdAt: string;
  finishedAt?: string;
  resultUrl?: string;
  output?: OutputView;
  error?: ErrorBody;
}

/** A job as it is accepted: queued, owned by the caller's key, under an unguessable id (144 bits). */
export function queuedJob(
  route: string,
  request: unknown,
  callbackUrl: string,
  caller: Caller,
  outputUrl?: string,
): JobRecord {
  return {
    jobId: randomBytes(18).toString('base64url'),
    status: 'queued',
    progress: 0,
    createdAt: new Date().toISOString(),
    owner: caller.callerId,
    tier: caller.tier,
    requestsPerMinute: caller.requestsPerMinute,
    route,
    callbackUrl,
    ...(outputUrl === undefined ? {} : { outputUrl }),
    request,
  };
}

/** Jobs and their results are kept 24 h (an S3 lifecycle rule in AWS; checked on read everywhere). */
export const JOB_TTL_MS = 24 * 60 * 60 * 1000;

export const isExpired = (record: Pick<JobRecord, 'createdAt'>, now = Date.now()) =>
  now - Date.parse(record.createdAt) > JOB_TTL_MS;

/**
 * How long a queued job may wait for its worker. The stack gives the asynchronous invocation this
 * maximum event age, so Lambda (after its retries) drops a run that has not started by then, and
 * the job can never start.
 */
export const JOB_START_WINDOW_MS = 60 * 60 * 1000;

/** How often a running job's worker stores its record, and when a silent worker counts as gone. */
export const HEARTBEAT_MS = 20_000;
export const HEARTBEAT_STALE_MS = 120_000;

/** When a job without a worker is known to have none: its heartbeat gone stale, or the start window's end. */
function abandonedSince(record: JobRecord): number | undefined {
  if (record.status === 'running' && record.heartbeatAt !== undefined)
    return Date.parse(record.heartbeatAt) + HEARTBEAT_STALE_MS;
  if (record.status === 'queued') return Date.parse(record.createdAt) + JOB_START_WINDOW_MS;
  return undefined;
}

/** A job no worker will ever finish: running with a stale heartbeat, or queued past the start window. */
export function isAbandoned(record: JobRecord, now = Date.now()): boolean {
  const since = abandonedSince(record);
  return since !== undefined && now > since;
}

const abandonedBecause = {
  running: 'the function running it stopped (out of memory, or at its time limit)',
  queued: 'it never started, because every attempt to run it failed',
} as const;

/**
 * The record as it must be read: an abandoned job is failed, from the moment it was known to be.
 * Polls show this at once; for a running job, the worker's next invocation stores it and sends the
 * webhook.
 */
export function failIfAbandoned(record: JobRecord, now = Date.now()): JobRecord {
  const since = abandonedSince(record);
  if (since === undefined || now <= since) return record;
  const because = abandonedBecause[record.status as 'running' | 'queued'];
  return {
    ...record,
    status: 'failed',
    finishedAt: new Date(since).toISOString(),
    error: {
      error: 'internal_error',
      message: `The job stopped before it finished: ${because}. Send it again, with less work if it was large; quote job id ${record.jobId} when reporting it.`,
    },
  };
}

export function publicView(record: JobRecord, resultUrl?: string): JobView {
  return {
    jobId: record.jobId,
    status: record.status,
    progress: record.progress,
    createdAt: record.createdAt,
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    ...(resultUrl ? { resultUrl } : {}),
    ...(record.output ? { output: record.output } : {}),
    ...(record.error ? { error: record.error } : {}),
  };
}
