import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EmbeddedS3, startEmbeddedS3 } from '../../../infra/local/s3.ts';

/**
 * Claims of an Idempotency-Key in the embedded S3 server the local gateway runs (S3 conditional
 * writes): of requests racing with one key, exactly one creates its job; a key past its 24 h is
 * free again; another request under a held key is 422.
 */

let s3: EmbeddedS3;
let idempotency: typeof import('#shared/jobs/idempotency.ts');

beforeAll(async () => {
  s3 = await startEmbeddedS3(['jobs']);
  vi.stubEnv('S3_ENDPOINT', s3.endpoint);
  vi.stubEnv('JOBS_BUCKET', 'jobs');
  vi.stubEnv('AWS_ACCESS_KEY_ID', s3.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.secretAccessKey);
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.resetModules();
  idempotency = await import('#shared/jobs/idempotency.ts');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await s3?.close();
});

const reason = (promise: Promise<unknown>) =>
  promise.then(
    (value) => value,
    // The modules were loaded again for this file's settings: their ApiError is another class.
    (error: { code?: string }) => error.code ?? String(error),
  );

describe('claimIdempotencyKey', () => {
  it('lets exactly one of many racing requests create its job; the others answer that job', async () => {
    const hash = idempotency.requestHash('image-convert', { sourceUrl: 'https://example.org/a.png' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        idempotency.claimIdempotencyKey('key:a', 'race', hash, `job-${index}`),
      ),
    );
    const created = answers.flatMap((answer, index) => (answer === undefined ? [`job-${index}`] : []));
    expect(created).toHaveLength(1);
    expect(answers.filter((answer) => answer !== undefined)).toEqual(Array(7).fill(created[0]));
  });

  it('keeps keys apart per API key, refuses another request under a held key, and frees a key after 24 h', async () => {
    const one = idempotency.requestHash('image-convert', { outputFormat: 'png' });
    const other = idempotency.requestHash('image-convert', { outputFormat: 'jpg' });
    expect(await idempotency.claimIdempotencyKey('key:a', 'k1', one, 'job-a')).toBeUndefined();
    expect(await idempotency.claimIdempotencyKey('key:b', 'k1', other, 'job-b')).toBeUndefined();
    expect(await reason(idempotency.claimIdempotencyKey('key:a', 'k1', other, 'job-c'))).toBe(
      'idempotency_key_reused',
    );
    const dayLater = Date.now() + 24 * 3600 * 1000 + 1000;
    expect(await idempotency.claimIdempotencyKey('key:a', 'k1', other, 'job-d', dayLater)).toBeUndefined();
    expect(await idempotency.claimIdempotencyKey('key:a', 'k1', other, 'job-e', dayLater)).toBe('job-d');
  });

  it('reads the header: visible ASCII, 1 to 255 characters', () => {
    expect(idempotency.idempotencyKeyOf({ 'idempotency-key': 'order-42/retry:1' })).toBe('order-42/retry:1');
    expect(idempotency.idempotencyKeyOf({})).toBeUndefined();
    for (const bad of ['', ' ', 'a b', 'x'.repeat(256), 'tab\t', 'é']) {
      expect(() => idempotency.idempotencyKeyOf({ 'idempotency-key': bad }), bad).toThrow(/Idempotency-Key/);
    }
  });
});
