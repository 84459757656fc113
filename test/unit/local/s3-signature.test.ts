import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedS3, startEmbeddedS3 } from '#infra/local/s3.ts';

const BUCKET = 'records';
const KEY = 'results/job-1/report.pdf';
const CONTENT = 'the stored result';

describe('the embedded S3 server checks Signature Version 4 as S3 does', () => {
  let s3: EmbeddedS3;
  let client: S3Client;
  const clientWith = (secretAccessKey: string) =>
    new S3Client({
      endpoint: s3.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      requestChecksumCalculation: 'WHEN_REQUIRED',
      maxAttempts: 1,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey },
    });
  const presign = (options: { expiresIn: number; signingDate?: Date }, key = KEY) =>
    getSignedUrl(client, new GetObjectCommand({ Bucket: BUCKET, Key: key }), options);

  /** A request signed in the Authorization header by the SDK's signer, at a chosen time. */
  const signedFetch = async (path: string, signingDate: Date, sentPath = path) => {
    const { host, hostname, port } = new URL(s3.endpoint);
    const signer = new SignatureV4({
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      region: 'us-east-1',
      service: 's3',
      sha256: Hash.bind(null, 'sha256'),
      uriEscapePath: false,
    });
    const signed = await signer.sign(
      {
        method: 'GET',
        protocol: 'http:',
        hostname,
        port: Number(port),
        path,
        query: {},
        headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      },
      { signingDate },
    );
    return fetch(`${s3.endpoint}${sentPath}`, { headers: signed.headers });
  };

  const expectRefusal = async (response: Response, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/xml');
    const body = await response.text();
    expect(body).toContain(`<Error><Code>${code}</Code>`);
    expect(body).not.toContain(CONTENT);
  };

  beforeAll(async () => {
    s3 = await startEmbeddedS3([BUCKET]);
    client = clientWith(s3.secretAccessKey);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: KEY, Body: CONTENT }));
  });
  afterAll(async () => {
    client.destroy();
    await s3.close();
  });

  it('serves requests signed with its key, in the header and presigned', async () => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect(listed.Contents?.map((entry) => entry.Key)).toEqual([KEY]);
    const read = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: KEY }));
    expect(await read.Body?.transformToString()).toBe(CONTENT);
    const presigned = await fetch(await presign({ expiresIn: 60 }));
    expect(presigned.status).toBe(200);
    expect(await presigned.text()).toBe(CONTENT);
  });

  it('generates a secret of its own at start: not the s3rver default', () => {
    expect(s3.secretAccessKey).not.toBe('S3RVER');
    expect(s3.secretAccessKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses unsigned listing and reading with 403 AccessDenied', async () => {
    await expectRefusal(await fetch(`${s3.endpoint}/${BUCKET}?list-type=2`), 403, 'AccessDenied');
    await expectRefusal(await fetch(`${s3.endpoint}/`), 403, 'AccessDenied');
    await expectRefusal(await fetch(`${s3.endpoint}/${BUCKET}/${KEY}`), 403, 'AccessDenied');
  });

  it('refuses a request signed with another secret', async () => {
    const intruder = clientWith('not-the-secret-of-this-server');
    const attempt = intruder.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    await expect(attempt).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
      $metadata: { httpStatusCode: 403 },
    });
    const url = await getSignedUrl(intruder, new GetObjectCommand({ Bucket: BUCKET, Key: KEY }), {
      expiresIn: 60,
    });
    await expectRefusal(await fetch(url), 403, 'SignatureDoesNotMatch');
    intruder.destroy();
  });

  it('refuses a tampered presigned URL: another key, a later expiry, a changed signature', async () => {
    const url = new URL(await presign({ expiresIn: 60 }));
    const otherKey = new URL(url);
    otherKey.pathname = `/${BUCKET}/results/job-2/report.pdf`;
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '600');
    const signature = url.searchParams.get('X-Amz-Signature') ?? '';
    const flipped = new URL(url);
    flipped.searchParams.set(
      'X-Amz-Signature',
      `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
    );
    for (const tampered of [otherKey, longer, flipped]) {
      await expectRefusal(await fetch(tampered), 403, 'SignatureDoesNotMatch');
    }
  });

  it('refuses an expired presigned URL, and one whose expiry was pushed back', async () => {
    const expired = new URL(await presign({ expiresIn: 60, signingDate: new Date(Date.now() - 3_600_000) }));
    await expectRefusal(await fetch(expired), 403, 'AccessDenied');
    expired.searchParams.set('X-Amz-Expires', '7200');
    await expectRefusal(await fetch(expired), 403, 'SignatureDoesNotMatch');
  });

  it('refuses a header-signed request dated over 15 minutes away, and one sent to another key', async () => {
    const path = `/${BUCKET}/${KEY}`;
    const fresh = await signedFetch(path, new Date());
    expect(fresh.status).toBe(200);
    await expectRefusal(
      await signedFetch(path, new Date(Date.now() - 20 * 60_000)),
      403,
      'RequestTimeTooSkewed',
    );
    await expectRefusal(
      await signedFetch(path, new Date(), `/${BUCKET}/results/job-2/report.pdf`),
      403,
      'SignatureDoesNotMatch',
    );
  });
});
