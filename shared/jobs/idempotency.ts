import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { config } from '#shared/config.ts';
import { ApiError } from '#shared/errors.ts';
import { JOB_TTL_MS } from '#shared/jobs/record.ts';
import { s3 } from '#shared/jobs/store.ts';

/** `Idempotency-Key`: 1 to 255 visible ASCII characters (RFC 5234 VCHAR). */
const keyRule = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's `Idempotency-Key` (headers as the request scope leaves them, lower-cased), if it
 * sent one; a malformed one is 400 `validation_failed` naming the header.
 */
export function idempotencyKeyOf(headers: Record<string, string | undefined> | null): string | undefined {
  const value = headers?.['idempotency-key'];
  if (value === undefined) return undefined;
  if (!keyRule.test(value)) {
    throw new ApiError(
      'validation_failed',
      'Idempotency-Key (header): must be 1 to 255 visible ASCII characters, without spaces.',
    );
  }
  return value;
}

/** What is kept for a key: the job it created and the hash of the request that created it. */
interface Claim {
  jobId: string;
  requestHash: string;
  createdAt: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The request compared under a key: the route and the validated body (callbackUrl included). */
export const requestHash = (route: string, body: unknown) => sha256(JSON.stringify({ route, body }));

/** One object per API key and Idempotency-Key, beside the job records; it expires with them. */
const claimKey = (owner: string, key: string) => `idempotency/${sha256(`${owner}\n${key}`)}.json`;

const isConditionFailure = (error: unknown) =>
  error instanceof S3ServiceException &&
  // 412: the condition did not hold; 409: a concurrent conditional write to the key won.
  [409, 412].includes(error.$metadata.httpStatusCode ?? 0);

async function readClaim(key: string): Promise<{ claim: Claim; etag: string } | undefined> {
  try {
    const answer = await s3().send(new GetObjectCommand({ Bucket: config.JOBS_BUCKET, Key: key }));
    const claim = JSON.parse((await answer.Body?.transformToString('utf8')) ?? 'null') as Claim;
    return { claim, etag: answer.ETag ?? '' };
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
}

/** Writes the claim only if the key holds nothing (or, with `etag`, still that expired claim). */
async function writeClaim(key: string, claim: Claim, etag?: string): Promise<boolean> {
  try {
    await s3().send(
      new PutObjectCommand({
        Bucket: config.JOBS_BUCKET,
        Key: key,
        Body: JSON.stringify(claim),
        ContentType: 'application/json',
        ...(etag === undefined ? { IfNoneMatch: '*' } : { IfMatch: etag }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error) || (etag !== undefined && error instanceof NoSuchKey)) return false;
    throw error;
  }
}

/**
 * Claims `key` of the API key `owner` for the job `jobId`, by S3 conditional writes, so that of
 * two requests racing with the same key exactly one creates its job. Answers undefined when the
 * claim is this request's; the first job's id when the same request was sent within 24 h; and
 * 422 `idempotency_key_reused` when the key was used for another request.
 */
export async function claimIdempotencyKey(
  owner: string,
  key: string,
  hash: string,
  jobId: string,
  now = Date.now(),
): Promise<string | undefined> {
  const objectKey = claimKey(owner, key);
  const claim: Claim = { jobId, requestHash: hash, createdAt: new Date(now).toISOString() };
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (await writeClaim(objectKey, claim)) return undefined;
    const held = await readClaim(objectKey);
    if (held === undefined) continue;
    if (now - Date.parse(held.claim.createdAt) > JOB_TTL_MS) {
      // Past its 24 h the key is free again; the bucket's lifecycle rule removes it a day later.
      if (await writeClaim(objectKey, claim, held.etag)) return undefined;
      continue;
    }
    if (held.claim.requestHash !== hash) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was used within the last 24 h for another request; send a new key with a new request.',
      );
    }
    return held.claim.jobId;
  }
  throw new Error(`Idempotency-Key could not be claimed for job ${jobId}`);
}

/** Frees a claim whose job could not be recorded, so that a retry with the key can create it. */
export async function releaseIdempotencyKey(owner: string, key: string): Promise<void> {
  await s3().send(new DeleteObjectCommand({ Bucket: config.JOBS_BUCKET, Key: claimKey(owner, key) }));
}
