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
