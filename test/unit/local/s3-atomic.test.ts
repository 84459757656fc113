import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedS3, startEmbeddedS3 } from '#infra/local/s3.ts';

describe('the embedded S3 server', () => {
  let s3: EmbeddedS3;
  let client: S3Client;

  beforeAll(async () => {
    s3 = await startEmbeddedS3(['records']);
    client = new S3Client({
      endpoint: s3.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
  });
  afterAll(async () => {
    client.destroy();
    await s3.close();
  });

  it('replaces an object atomically: readers racing writers see whole versions only', async () => {
    const version = (n: number) => JSON.stringify({ n, padding: 'x'.repeat(n % 2 ? 200_000 : 10) });
    const put = (n: number) =>
      client.send(new PutObjectCommand({ Bucket: 'records', Key: 'jobs/a.json', Body: version(n) }));
    const get = async () => {
      const answer = await client.send(new GetObjectCommand({ Bucket: 'records', Key: 'jobs/a.json' }));
      return JSON.parse(await answer.Body!.transformToString()) as { n: number; padding: string };
    };
    await put(0);
    const seen = await Promise.all(
      Array.from({ length: 40 }, (_, n) => (n % 2 ? put(n).then(() => undefined) : get())),
    );
    for (const record of seen) {
      if (record) expect(record.padding).toHaveLength(record.n % 2 ? 200_000 : 10);
    }
  });
});
