import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Caller } from '#shared/auth/authorize.ts';
import type { FileResult } from '#shared/http/respond.ts';
import type { CallInput } from '#shared/http/stack.ts';
import { HEARTBEAT_MS, HEARTBEAT_STALE_MS, type JobRecord, queuedJob } from '#shared/jobs/record.ts';
import { type EmbeddedS3, startEmbeddedS3 } from '../../../infra/local/s3.ts';
import { FixtureServer } from '../../support/fixture-server.ts';

/**
 * The job worker against a real S3-protocol server and a callback receiver on loopback. The job
 * modules are loaded after the environment names them, as a Lambda container reads it once.
 */
const WEBHOOK_SECRET = 'webhook-secret-for-the-run-tests';
const hooks = new FixtureServer();
const deliveries: Array<{ body: string; signature: string }> = [];
let s3: EmbeddedS3;
let jobs: {
  runJob: typeof import('#shared/jobs/run.ts').runJob;
  readJob: typeof import('#shared/jobs/read.ts').readJob;
  loadJob: typeof import('#shared/jobs/store.ts').loadJob;
  saveJob: typeof import('#shared/jobs/store.ts').saveJob;
  resultUrl: typeof import('#shared/jobs/store.ts').resultUrl;
};

const caller: Caller = { tier: 'pro', callerId: 'key:run-tests', requestsPerMinute: 100, keyed: true };
/** A job as accepted: queued, owned by `caller`, calling back to the receiver. */
const acceptedJob = () => queuedJob('image-convert', {}, hooks.url('/hook'), caller);

/** Work that must never be started. */
const forbiddenWork = vi.fn(async (): Promise<FileResult> => {
  throw new Error('the work ran');
});

beforeAll(async () => {
  await hooks.start();
  hooks.route('/hook', async (request, response) => {
    deliveries.push({
      body: (await buffer(request)).toString(),
      signature: String(request.headers['x-signature']),
    });
    response.writeHead(204).end();
  });
  s3 = await startEmbeddedS3(['jobs']);
  vi.stubEnv('S3_ENDPOINT', s3.endpoint);
  vi.stubEnv('AWS_ACCESS_KEY_ID', s3.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.secretAccessKey);
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('JOBS_BUCKET', 'jobs');
  vi.stubEnv('WEBHOOK_SECRET', WEBHOOK_SECRET);
  vi.stubEnv('WEBHOOK_RETRY_DELAYS_MS', '50,50');
  vi.resetModules();
  const store = await import('#shared/jobs/store.ts');
  jobs = {
    runJob: (await import('#shared/jobs/run.ts')).runJob,
    readJob: (await import('#shared/jobs/read.ts')).readJob,
    loadJob: store.loadJob,
    saveJob: store.saveJob,
    resultUrl: store.resultUrl,
  };
});

beforeEach(() => {
  deliveries.length = 0;
  forbiddenWork.mockClear();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await s3?.close();
  await hooks.stop();
});

describe('a job whose worker stopped without a word', () => {
  /** A running job whose last heartbeat is `ageMs` old, stored. */
  const savedRunningJob = async (ageMs: number): Promise<JobRecord> => {
    const job: JobRecord = {
      ...acceptedJob(),
      status: 'running',
      progress: 40,
      heartbeatAt: new Date(Date.now() - ageMs).toISOString(),
    };
    await jobs.saveJob(job);
    return job;
  };
  const staleAge = HEARTBEAT_STALE_MS + 60_000;
  const knownGoneAt = (heartbeatAt: string) =>
    new Date(Date.parse(heartbeatAt) + HEARTBEAT_STALE_MS).toISOString();

  it('reads as failed once its heartbeat is stale, with a clear error', async () => {
    const job = await savedRunningJob(staleAge);

    const view = await jobs.readJob(job.jobId, caller);

    expect(view).toMatchObject({ status: 'failed', progress: 40, finishedAt: knownGoneAt(job.heartbeatAt!) });
    expect(view.error?.error).toBe('internal_error');
    expect(view.error?.message).toMatch(/stopped before it finished.*out of memory, or at its time limit/);
    expect(view.error?.message).toContain(job.jobId);
  });

  it('is recorded as failed and called back, signed, by the next invocation of the worker', async () => {
    const job = await savedRunningJob(staleAge);

    await jobs.runJob(job.jobId, forbiddenWork, Date.now() + 60_000);

    expect(forbiddenWork).not.toHaveBeenCalled();
    const stored = await jobs.loadJob(job.jobId);
    expect(stored).toMatchObject({
      status: 'failed',
      finishedAt: knownGoneAt(job.heartbeatAt!),
      error: { error: 'internal_error' },
      webhook: { attempts: 1, delivered: true, lastStatus: 204 },
    });
    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries;
    const expected = createHmac('sha256', WEBHOOK_SECRET)
      .update(delivery?.body ?? '')
      .digest('hex');
    expect(delivery?.signature).toBe(`sha256=${expected}`);
    expect(JSON.parse(delivery?.body ?? '{}')).toEqual(await jobs.readJob(job.jobId, caller));
  });

  it('is left to its worker while its heartbeat is fresh, failing the invocation so that Lambda retries it later', async () => {
    const job = await savedRunningJob(HEARTBEAT_MS);

    await expect(jobs.runJob(job.jobId, forbiddenWork, Date.now() + 60_000)).rejects.toThrow(
      /running with a fresh heartbeat/,
    );

    expect(forbiddenWork).not.toHaveBeenCalled();
    expect(await jobs.loadJob(job.jobId)).toEqual(job);
    expect(await jobs.readJob(job.jobId, caller)).toMatchObject({ status: 'running', progress: 40 });
    expect(deliveries).toEqual([]);
  });

  it('keeps its heartbeat while it runs, however long a step takes without progress', async () => {
    const job = acceptedJob();
    await jobs.saveJob(job);
    const beats: string[] = [];
    const heartbeatOf = async () => (await jobs.loadJob(job.jobId))?.heartbeatAt ?? '';
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      await jobs.runJob(
        job.jobId,
        async ({ workspace }: CallInput<never>) => {
          beats.push(await heartbeatOf());
          for (const _ of [1, 2]) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            vi.advanceTimersByTime(HEARTBEAT_MS);
            await vi.waitFor(async () => expect(await heartbeatOf()).not.toBe(beats.at(-1)));
            beats.push(await heartbeatOf());
          }
          const path = await workspace.file('result.txt');
          await writeFile(path, 'done');
          return { path, contentType: 'text/plain', fileName: 'result.txt' };
        },
        Date.now() + 120_000,
      );
    } finally {
      vi.useRealTimers();
    }

    expect(beats).toHaveLength(3);
    expect(beats.every((beat) => beat !== '')).toBe(true);
    expect(new Set(beats).size).toBe(3);
    expect(await jobs.readJob(job.jobId, caller)).toMatchObject({ status: 'succeeded', progress: 100 });
  });
});

describe('a job that runs out of time', () => {
  it('fails as a conversion that does not finish in time (413 media_too_long), and still calls back', async () => {
    const job = acceptedJob();
    await jobs.saveJob(job);
    // 21 s before the end: the work gets the last second before the 20 s kept for what follows it.
    const endsAt = Date.now() + 21_000;

    await jobs.runJob(
      job.jobId,
      ({ signal }: CallInput<never>) =>
        new Promise<FileResult>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
      endsAt,
    );

    const view = await jobs.readJob(job.jobId, caller);
    expect(view.status).toBe('failed');
    expect(view.error?.error).toBe('media_too_long');
    expect(view.error?.message).toMatch(/did not finish within 1 s, the processing time of one job/);
    expect(view.error?.message).toMatch(/less work/);
    expect(deliveries.map((delivery) => JSON.parse(delivery.body))).toEqual([view]);
  });
});

describe('the result link', () => {
  const finished = (hoursAgo: number): JobRecord => ({
    ...acceptedJob(),
    status: 'succeeded',
    createdAt: new Date(Date.now() - hoursAgo * 3600_000).toISOString(),
    result: { key: 'results/x/out.png', fileName: 'out.png', contentType: 'image/png', sizeBytes: 1 },
  });
  const lifetimeOf = (url: string | undefined) =>
    Number(new URL(url ?? '').searchParams.get('X-Amz-Expires'));

  it('lasts its configured hour early in the job’s life', async () => {
    expect(lifetimeOf(await jobs.resultUrl(finished(1)))).toBe(3600);
  });

  it('never outlives the job: half an hour before the job expires, it lasts at most that half hour', async () => {
    const lifetime = lifetimeOf(await jobs.resultUrl(finished(23.5)));
    expect(lifetime).toBeGreaterThan(1700);
    expect(lifetime).toBeLessThanOrEqual(1800);
  });

  it('is not given once the job has expired', async () => {
    expect(await jobs.resultUrl(finished(24.1))).toBeUndefined();
  });
});
