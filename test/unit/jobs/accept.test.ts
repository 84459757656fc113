import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Caller } from '#shared/auth/authorize.ts';
import { fileRouteNeeds } from '#shared/routes/types.ts';

/**
 * Accepting an async job where private addresses are forbidden (as in AWS): the callback must be
 * https, since the signed webhook carries the link to the result. The store and the dispatch are
 * replaced, so what is checked is only what acceptJob decides before it records anything.
 */
const saved = vi.hoisted(() => ({
  jobs: [] as Array<Record<string, unknown>>,
  dispatched: [] as string[],
  dispatchFails: false,
}));

vi.mock('#shared/jobs/store.ts', () => ({
  saveJob: async (record: Record<string, unknown>) => {
    saved.jobs.push(record);
  },
}));
vi.mock('#shared/jobs/dispatch.ts', () => ({
  dispatchJob: async (_route: string, jobId: string) => {
    if (saved.dispatchFails) throw new Error('queue unavailable');
    saved.dispatched.push(jobId);
  },
}));

let acceptJob: typeof import('#shared/jobs/accept.ts').acceptJob;
const pro: Caller = { tier: 'pro', callerId: 'key:test', requestsPerMinute: 100, keyed: true };

beforeAll(async () => {
  // The configuration is read when the modules load: load them again as deployed.
  vi.stubEnv('SOURCE_ALLOW_PRIVATE', 'false');
  vi.resetModules();
  ({ acceptJob } = await import('#shared/jobs/accept.ts'));
});
afterAll(() => vi.unstubAllEnvs());
beforeEach(() => {
  saved.jobs.length = 0;
  saved.dispatched.length = 0;
  saved.dispatchFails = false;
});

const accept = (callbackUrl: string) =>
  acceptJob(
    'image-convert',
    fileRouteNeeds,
    { sourceUrl: 'https://example.org/a.png' },
    { callbackUrl },
    pro,
  );

describe('the callback URL of an async job', () => {
  it('over plain http to a public address: 400 source_invalid_url, nothing recorded or started', async () => {
    const error = await accept('http://93.184.216.34/hook').catch((caught: unknown) => caught);
    // Loaded again above, so its ApiError is a class of its own: matched by its fields.
    expect(error).toHaveProperty('name', 'ApiError');
    expect(error).toMatchObject({
      code: 'source_invalid_url',
      message: 'callbackUrl must be an https URL.',
    });
    expect(saved.jobs).toEqual([]);
    expect(saved.dispatched).toEqual([]);
  });

  it('over https to a public address: 202 naming the job and where to poll it, recorded and started', async () => {
    const answer = await accept('https://93.184.216.34/hook');
    expect(answer.statusCode).toBe(202);
    expect(saved.jobs).toHaveLength(1);
    const jobId = saved.jobs[0]?.jobId as string;
    expect(saved.jobs[0]).toMatchObject({ status: 'queued', callbackUrl: 'https://93.184.216.34/hook' });
    expect(saved.dispatched).toEqual([jobId]);
    expect(JSON.parse(String(answer.body))).toEqual({ jobId, status: 'queued', statusUrl: `/jobs/${jobId}` });
  });

  it('that is no URL at all: the message names the callbackUrl field', async () => {
    const error = await accept('not a url').catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'source_invalid_url',
      message: 'callbackUrl is not a valid absolute URL.',
    });
    expect(saved.jobs).toEqual([]);
  });

  it('over https to a private address: still refused, for its address', async () => {
    const error = await accept('https://10.0.0.8/hook').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'source_blocked_address' });
    expect(saved.jobs).toEqual([]);
  });
});

describe('a job that cannot be started', () => {
  it('is recorded as failed with internal_error, never left queued, and the error goes on', async () => {
    saved.dispatchFails = true;
    await expect(accept('https://93.184.216.34/hook')).rejects.toThrow('queue unavailable');
    expect(saved.jobs.map((job) => job.status)).toEqual(['queued', 'failed']);
    expect(saved.jobs[1]).toMatchObject({
      jobId: saved.jobs[0]?.jobId,
      error: { error: 'internal_error', message: 'The job could not be started.' },
    });
    expect(typeof saved.jobs[1]?.finishedAt).toBe('string');
  });
});

describe('where private sources are allowed (local development)', () => {
  it('an http callback to the loopback is accepted', async () => {
    vi.stubEnv('SOURCE_ALLOW_PRIVATE', 'true');
    vi.resetModules();
    const local = await import('#shared/jobs/accept.ts');
    const answer = await local.acceptJob(
      'image-convert',
      fileRouteNeeds,
      {},
      { callbackUrl: 'http://127.0.0.1:9/hook' },
      pro,
    );
    expect(answer.statusCode).toBe(202);
    expect(saved.dispatched).toHaveLength(1);
  });
});
