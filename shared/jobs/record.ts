import type { ErrorBody } from '#shared/http/errors.ts';
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
  /** The validated request body, without callbackUrl. */
  request: unknown;
  result?: { key: string; fileName: string; contentType: string; sizeBytes: number };
  webhook?: { attempts: number; delivered: boolean; lastStatus?: number };
  /**
   * Set when the job starts running: the end of its worker's invocation plus a margin. A job still
   * running after it has lost its worker, which Lambda stopped without a word (out of memory, the
   * function's timeout).
   */
  runDeadline?: string;
}

export interface JobView {
  jobId: string;
  status: JobStatus;
  progress: number;
  createdAt: string;
  finishedAt?: string;
  resultUrl?: string;
  error?: ErrorBody;
}

/** Jobs and their results are kept 24 h (an S3 lifecycle rule in AWS; checked on read everywhere). */
export const JOB_TTL_MS = 24 * 60 * 60 * 1000;

export const isExpired = (record: Pick<JobRecord, 'createdAt'>, now = Date.now()) =>
  now - Date.parse(record.createdAt) > JOB_TTL_MS;

/** A running job past its run deadline: its worker is gone and will never finish it. */
export const isAbandoned = (record: JobRecord, now = Date.now()) =>
  record.status === 'running' && record.runDeadline !== undefined && now > Date.parse(record.runDeadline);

/**
 * The record as it must be read: an abandoned job is failed, from its run deadline on. Polls show
 * this at once; the worker's next invocation for the job stores it and sends the webhook.
 */
export function failIfAbandoned(record: JobRecord, now = Date.now()): JobRecord {
  if (!isAbandoned(record, now)) return record;
  return {
    ...record,
    status: 'failed',
    finishedAt: record.runDeadline,
    error: {
      error: 'internal_error',
      message: `The job stopped before it finished: the function running it ran out of time or memory. Send it again, with less work if it was large; quote job id ${record.jobId} when reporting it.`,
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
    ...(record.error ? { error: record.error } : {}),
  };
}
