import { describe, expect, it } from 'vitest';
import {
  failIfAbandoned,
  isExpired,
  JOB_START_WINDOW_MS,
  JOB_TTL_MS,
  type JobRecord,
  publicView,
} from '#shared/jobs/record.ts';

const record: JobRecord = {
  jobId: 'abc',
  status: 'failed',
  progress: 40,
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:01:00.000Z',
  error: { error: 'invalid_source_file', message: 'bad' },
  owner: 'key:secret-digest',
  tier: 'pro',
  requestsPerMinute: 100,
  route: 'image-convert',
  callbackUrl: 'https://example.org/hook',
  request: { sourceUrl: 'https://example.org/a.png' },
};

describe('job records', () => {
  it('show the contract fields and nothing internal', () => {
    const view = publicView(record, 'https://s3/result');
    expect(Object.keys(view).sort()).toEqual([
      'createdAt',
      'error',
      'finishedAt',
      'jobId',
      'progress',
      'resultUrl',
      'status',
    ]);
    expect(JSON.stringify(view)).not.toMatch(/secret-digest|callbackUrl|example\.org\/a\.png/);
  });

  it('expire 24 h after creation', () => {
    const created = Date.parse(record.createdAt);
    expect(isExpired(record, created + JOB_TTL_MS - 1)).toBe(false);
    expect(isExpired(record, created + JOB_TTL_MS + 1)).toBe(true);
  });

  it('read a job that never started within the start window as failed, from the window on', () => {
    const queued: JobRecord = {
      ...record,
      status: 'queued',
      progress: 0,
      finishedAt: undefined,
      error: undefined,
    };
    const windowEnd = Date.parse(queued.createdAt) + JOB_START_WINDOW_MS;
    expect(failIfAbandoned(queued, windowEnd)).toBe(queued);
    const failed = failIfAbandoned(queued, windowEnd + 1);
    expect(failed.status).toBe('failed');
    expect(failed.finishedAt).toBe(new Date(windowEnd).toISOString());
    expect(failed.error?.error).toBe('internal_error');
    expect(failed.error?.message).toMatch(/never started.*quote job id abc/);
  });

  it('leave finished jobs as they are, however old', () => {
    expect(failIfAbandoned(record, Date.parse(record.createdAt) + JOB_TTL_MS)).toBe(record);
  });
});
