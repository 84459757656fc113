import { timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { config } from '#shared/config.ts';

/**
 * Whether a source URL is a download link the service itself made for an upload (`POST /uploads`):
 * a presigned GET of an object under `uploads/` in the job bucket, at the configured S3 endpoint
 * exactly (scheme, host and port), not expired, whose signature is recomputed here with the
 * service's own S3 credentials and matches. Only such a URL may reach the store where private
 * addresses are refused (the local gateway's embedded S3 listens on loopback). A look-alike host,
 * another bucket or prefix, another key, or a tampered or foreign signature is an ordinary source.
 *
 * In AWS the store is S3's public endpoint (S3_ENDPOINT unset): upload links pass the ordinary
 * source rules there, and nothing is exempted.
 */

/** The uploads' place in the job bucket; the bucket's lifecycle rule expires it. */
export const UPLOADS_PREFIX = 'uploads/';

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** What presigning adds to the query; the signer adds them again when it recomputes. */
const presignParams = new Set([
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
]);

/** `20261125T121500Z` → epoch ms; anything else → undefined. */
function parseAmzDate(text: string | null): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  if (!match) return undefined;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!, hours!, minutes!, seconds!));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

function ownCredentials() {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** Whether the URL points into the upload area of our bucket at our endpoint, before any signature check. */
export function isUploadAreaUrl(url: URL): boolean {
  if (!config.S3_ENDPOINT) return false;
  const endpoint = new URL(config.S3_ENDPOINT);
  return (
    url.protocol === endpoint.protocol &&
    url.host === endpoint.host &&
    url.username === '' &&
    url.password === '' &&
    url.hash === '' &&
    url.pathname.startsWith(`/${config.JOBS_BUCKET}/${UPLOADS_PREFIX}`)
  );
}

/** True only for a valid, unexpired presigned GET of an uploaded file, made with our own credentials. */
export async function isOwnUploadUrl(url: URL, now = Date.now()): Promise<boolean> {
  const credentials = ownCredentials();
  if (!credentials || !isUploadAreaUrl(url)) return false;
  const query = url.searchParams;
  const single = (name: string) => (query.getAll(name).length === 1 ? query.get(name) : null);
  const date = parseAmzDate(single('X-Amz-Date'));
  const expires = Number(single('X-Amz-Expires'));
  const signature = single('X-Amz-Signature') ?? '';
  const credential = (single('X-Amz-Credential') ?? '').split('/');
  if (single('X-Amz-Algorithm') !== ALGORITHM || single('X-Amz-SignedHeaders') !== 'host') return false;
  if (!date || !Number.isInteger(expires) || expires < 1 || expires > 7 * 24 * 3600) return false;
  if (now > date.getTime() + expires * 1000 || date.getTime() > now + 15 * 60 * 1000) return false;
  if (!/^[0-9a-f]{64}$/.test(signature) || credential.length !== 5) return false;
  const [accessKeyId, , region] = credential as [string, string, string];
  if (!sameText(accessKeyId, credentials.accessKeyId) || !region) return false;

  const rest: Record<string, string | string[]> = {};
  for (const name of new Set(query.keys())) {
    if (presignParams.has(name)) continue;
    const values = query.getAll(name);
    rest[name] = values.length === 1 ? values[0]! : values;
  }
  const signer = new SignatureV4({
    credentials,
    region,
    service: 's3',
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
  });
  // A presigned URL's payload is never signed; the signer reads that from this header and leaves
  // it out of the signed headers and of the query it rebuilds.
  const skip = new Set(['x-amz-content-sha256']);
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      path: url.pathname,
      query: rest,
      headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    },
    {
      signingDate: date,
      expiresIn: expires,
      signableHeaders: new Set(['host']),
      unsignableHeaders: skip,
      unhoistableHeaders: skip,
    },
  );
  return sameText(String(presigned.query?.['X-Amz-Signature'] ?? ''), signature);
}
