import { randomBytes } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Caller } from '#shared/auth/authorize.ts';
import { config } from '#shared/config.ts';
import { ApiError } from '#shared/errors.ts';
import { assertMayUse } from '#shared/jobs/accept.ts';
import { s3ClientConfig } from '#shared/jobs/store.ts';
import { fileRouteNeeds } from '#shared/routes/types.ts';
import { UPLOADS_PREFIX } from '#shared/source/own-upload.ts';
import { type TierLimits, tiers, tierThatLifts } from '#shared/tiers.ts';
import { formatBytes } from '#shared/units.ts';

export interface UploadRequest {
  filename: string;
  contentType?: string | undefined;
  sizeBytes: number;
}

export interface UploadTicket {
  uploadUrl: string;
  method: 'PUT';
  headers: Record<string, string>;
  sourceUrl: string;
  expiresAt: string;
}

/** How long the PUT may start, and how long the download link to the uploaded file lives. */
export const UPLOAD_URL_SECONDS = 15 * 60;
export const SOURCE_URL_SECONDS = 24 * 60 * 60;

let client: S3Client | undefined;

/**
 * The presigning client: no checksum of its own (the SDK would sign a checksum of an empty body
 * into the PUT, which the client's real file could never match).
 */
const presigner = () =>
  (client ??= new S3Client({ ...s3ClientConfig(), requestChecksumCalculation: 'WHEN_REQUIRED' }));

/** The file's name as a key segment and as the results' base name: letters, digits, `._-` only. */
export function safeFileName(name: string): string {
  const safe = name
    .replace(/^.*[\\/]/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '');
  return safe.slice(-120) || 'upload';
}

function tooLarge(sizeBytes: number, caller: Caller, limits: TierLimits): ApiError {
  const lift = tierThatLifts((tier) => tier.maxSourceBytes >= sizeBytes);
  const hint = lift
    ? ` The ${lift} tier accepts sources up to ${formatBytes(tiers[lift].maxSourceBytes)}.`
    : ' No tier accepts a source this large.';
  return new ApiError(
    'source_too_large',
    `sizeBytes ${formatBytes(sizeBytes)} is over the ${formatBytes(limits.maxSourceBytes)} source limit of the ${caller.tier} tier.${hint}`,
  );
}

/**
 * A presigned PUT into the upload area of the job bucket, for exactly the declared size (its
 * Content-Length, and the Content-Type when given, are signed, so the store refuses any other),
 * and a presigned GET of the same object to pass as `sourceUrl`. The bucket's lifecycle rule
 * removes uploads after a day.
 */
export async function createUpload(
  request: UploadRequest,
  caller: Caller,
  limits: TierLimits,
  now = Date.now(),
): Promise<UploadTicket> {
  assertMayUse(caller, fileRouteNeeds, 'Uploads');
  if (request.sizeBytes > limits.maxSourceBytes) throw tooLarge(request.sizeBytes, caller, limits);
  const key = `${UPLOADS_PREFIX}${randomBytes(18).toString('base64url')}/${safeFileName(request.filename)}`;
  const headers: Record<string, string> = {
    'Content-Length': String(request.sizeBytes),
    ...(request.contentType ? { 'Content-Type': request.contentType } : {}),
  };
  const signingDate = new Date(now);
  const uploadUrl = await getSignedUrl(
    presigner(),
    new PutObjectCommand({
      Bucket: config.JOBS_BUCKET,
      Key: key,
      ContentLength: request.sizeBytes,
      ...(request.contentType ? { ContentType: request.contentType } : {}),
    }),
    {
      expiresIn: UPLOAD_URL_SECONDS,
      signingDate,
      signableHeaders: new Set(Object.keys(headers).map((name) => name.toLowerCase())),
    },
  );
  const sourceUrl = await getSignedUrl(
    presigner(),
    new GetObjectCommand({ Bucket: config.JOBS_BUCKET, Key: key }),
    { expiresIn: SOURCE_URL_SECONDS, signingDate },
  );
  return {
    uploadUrl,
    method: 'PUT',
    headers,
    sourceUrl,
    expiresAt: new Date(now + UPLOAD_URL_SECONDS * 1000).toISOString(),
  };
}
