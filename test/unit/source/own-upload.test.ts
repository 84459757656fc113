import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * Which source URLs are the service's own upload links (`isOwnUploadUrl`), the only ones a
 * deployment that refuses private sources lets reach its S3 endpoint on a private address. Links
 * are made by the AWS SDK's presigner, as POST /uploads makes them.
 */

const endpoint = 'http://127.0.0.1:4599';
const ours = { accessKeyId: 'S3RVER', secretAccessKey: 'a'.repeat(64) };
let isOwnUploadUrl: typeof import('#shared/source/own-upload.ts').isOwnUploadUrl;

const client = (credentials = ours, at = endpoint) =>
  new S3Client({
    endpoint: at,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
const signedGet = (
  key: string,
  options: { bucket?: string; credentials?: typeof ours; at?: string; expiresIn?: number } = {},
) =>
  getSignedUrl(
    client(options.credentials, options.at),
    new GetObjectCommand({ Bucket: options.bucket ?? 'jobs', Key: key }),
    { expiresIn: options.expiresIn ?? 86_400 },
  );
const own = (url: string, now?: number) => isOwnUploadUrl(new URL(url), now);

beforeAll(async () => {
  vi.stubEnv('SOURCE_ALLOW_PRIVATE', 'false');
  vi.stubEnv('S3_ENDPOINT', endpoint);
  vi.stubEnv('JOBS_BUCKET', 'jobs');
  vi.stubEnv('AWS_ACCESS_KEY_ID', ours.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', ours.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', '');
  vi.resetModules();
  ({ isOwnUploadUrl } = await import('#shared/source/own-upload.ts'));
});
afterAll(() => vi.unstubAllEnvs());

describe('isOwnUploadUrl', () => {
  it('accepts a download link of an upload, signed with our key, until it expires', async () => {
    const url = await signedGet('uploads/abc/photo.png', { expiresIn: 60 });
    expect(await own(url)).toBe(true);
    expect(await own(url, Date.now() + 61_000)).toBe(false);
  });

  it('refuses a tampered signature, key, expiry or query', async () => {
    const url = await signedGet('uploads/abc/photo.png');
    const signature = new URL(url).searchParams.get('X-Amz-Signature')!;
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expect(await own(url.replace(signature, flipped))).toBe(false);
    expect(await own(url.replace('/photo.png', '/other.png'))).toBe(false);
    expect(await own(url.replace('X-Amz-Expires=86400', 'X-Amz-Expires=604800'))).toBe(false);
    expect(await own(`${url}&response-content-type=text%2Fhtml`)).toBe(false);
    expect(await own(`${url}&X-Amz-Signature=${signature}`)).toBe(false);
  });

  it('refuses look-alike hosts and ports, other buckets and prefixes, even when validly signed', async () => {
    expect(await own(await signedGet('uploads/abc/a.png', { at: 'http://localhost:4599' }))).toBe(false);
    expect(await own(await signedGet('uploads/abc/a.png', { at: 'http://127.0.0.1:4600' }))).toBe(false);
    expect(await own(await signedGet('uploads/abc/a.png', { bucket: 'other' }))).toBe(false);
    expect(await own(await signedGet('results/abc/a.png'))).toBe(false);
    expect(await own(await signedGet('jobs/abc.json'))).toBe(false);
  });

  it('refuses links signed with another key, and presigned PUTs', async () => {
    const foreign = { accessKeyId: 'S3RVER', secretAccessKey: 'b'.repeat(64) };
    expect(await own(await signedGet('uploads/abc/a.png', { credentials: foreign }))).toBe(false);
    const put = await getSignedUrl(
      client(),
      new PutObjectCommand({ Bucket: 'jobs', Key: 'uploads/abc/a.png' }),
      {
        expiresIn: 900,
      },
    );
    expect(await own(put)).toBe(false);
  });
});
