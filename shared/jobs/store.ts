import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '#shared/config.ts';
import { contentDisposition } from '#shared/http/headers.ts';
import type { FileResult } from '#shared/http/respond.ts';
import { JOB_TTL_MS, type JobRecord } from '#shared/jobs/record.ts';

/** Job records and results in S3 (an S3-protocol server on loopback when run locally). */
let client: S3Client | undefined;

/**
 * Created on first use, so that functions that never touch it pay nothing at start. An S3-protocol
 * server of our own choosing (S3_ENDPOINT) gets path-style addresses and plain uploads: the SDK's
 * default checksum trailers send a streamed body aws-chunked, which such servers may store as is.
 */
export const s3ClientConfig = () =>
  config.S3_ENDPOINT
    ? {
        endpoint: config.S3_ENDPOINT,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED' as const,
      }
    : {};

export const s3 = () => (client ??= new S3Client(s3ClientConfig()));

const recordKey = (jobId: string) => `jobs/${jobId}.json`;

export async function saveJob(record: JobRecord): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: config.JOBS_BUCKET,
      Key: recordKey(record.jobId),
      Body: JSON.stringify(record),
      ContentType: 'application/json',
    }),
  );
}

/** The ids of every job record in the bucket (the local gateway reads them at start). */
export async function listJobIds(): Promise<string[]> {
  const ids: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: config.JOBS_BUCKET, Prefix: 'jobs/', ContinuationToken }),
    );
    for (const { Key } of page.Contents ?? []) {
      const id = /^jobs\/([A-Za-z0-9_-]+)\.json$/.exec(Key ?? '')?.[1];
      if (id) ids.push(id);
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return ids;
}

export async function loadJob(jobId: string): Promise<JobRecord | undefined> {
  try {
    const answer = await s3().send(
      new GetObjectCommand({ Bucket: config.JOBS_BUCKET, Key: recordKey(jobId) }),
    );
    return JSON.parse((await answer.Body?.transformToString('utf8')) ?? 'null') as JobRecord;
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
}

/** Streams a job's result file from the workspace to S3. */
export async function saveResult(jobId: string, file: FileResult): Promise<NonNullable<JobRecord['result']>> {
  const key = `results/${jobId}/${file.fileName}`;
  const { size } = await stat(file.path);
  await s3().send(
    new PutObjectCommand({
      Bucket: config.JOBS_BUCKET,
      Key: key,
      Body: createReadStream(file.path),
      ContentLength: size,
      ContentType: file.contentType,
      ContentDisposition: contentDisposition(file.fileName),
    }),
  );
  return { key, fileName: file.fileName, contentType: file.contentType, sizeBytes: size };
}

/**
 * A time-limited download link for a finished job's result. It never outlives the job: read late
 * in the job's 24 h, a link of the full length would still open the result after the job is gone.
 */
export function resultUrl(record: JobRecord, now = Date.now()): Promise<string | undefined> {
  if (!record.result) return Promise.resolve(undefined);
  const secondsLeft = Math.floor((Date.parse(record.createdAt) + JOB_TTL_MS - now) / 1000);
  const expiresIn = Math.min(config.JOB_RESULT_URL_SECONDS, secondsLeft);
  if (expiresIn < 1) return Promise.resolve(undefined);
  const command = new GetObjectCommand({ Bucket: config.JOBS_BUCKET, Key: record.result.key });
  return getSignedUrl(s3(), command, { expiresIn });
}
