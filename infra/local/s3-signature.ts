import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest, QueryParameterBag } from '@smithy/types';

/**
 * AWS Signature Version 4 checks for the embedded S3 server, as S3 makes them: every request must
 * be signed, in the Authorization header or in a presigned URL's query, with the server's key; the
 * signature is recomputed for the request as it arrived (by the SDK's own signer) and compared in
 * constant time. A header-signed request must be dated within 15 minutes of now; a presigned one is
 * refused once its X-Amz-Expires has passed.
 */

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A refusal in S3's terms: the status and code S3 answers with. */
export interface S3Refusal {
  status: 400 | 403;
  code: string;
  message: string;
}

const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;
const ALGORITHM = 'AWS4-HMAC-SHA256';
/** What a presigned URL adds to the query; the signer adds them again when it recomputes. */
const presignParams = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
];

const refusal = (status: S3Refusal['status'], code: string, message: string): S3Refusal => ({
  status,
  code,
  message,
});
const mismatch = () =>
  refusal(
    403,
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );

/** The query as a signer sees it: names and values percent-decoded, repeated names kept. */
function parseQuery(raw: string): Record<string, string | string[]> | undefined {
  const query: Record<string, string | string[]> = {};
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(at === -1 ? part : part.slice(0, at));
      value = at === -1 ? '' : decodeURIComponent(part.slice(at + 1));
    } catch {
      return undefined;
    }
    const previous = query[name];
    query[name] = previous === undefined ? value : [...[previous].flat(), value];
  }
  return query;
}

/** `20261125T121500Z` → a Date; anything else → undefined. */
function parseAmzDate(text: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  if (!match) return undefined;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!, hours!, minutes!, seconds!));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

interface Credential {
  accessKeyId: string;
  region: string;
}

/** `AKID/20261125/us-east-1/s3/aws4_request`, dated the same day as the request. */
function parseCredential(text: string | undefined, date: Date): Credential | undefined {
  const parts = (text ?? '').split('/');
  if (parts.length !== 5) return undefined;
  const [accessKeyId, day, region, service, terminal] = parts as [string, string, string, string, string];
  const dateDay = date.toISOString().slice(0, 10).replaceAll('-', '');
  if (day !== dateDay || service !== 's3' || terminal !== 'aws4_request' || !region) return undefined;
  return { accessKeyId, region };
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The request as the signer sees it: only the headers the client says it signed. */
function toSignable(request: IncomingMessage, query: QueryParameterBag, signed: string[]): HttpRequest {
  const url = request.url ?? '/';
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const host = request.headers.host ?? '';
  return {
    method: request.method ?? 'GET',
    protocol: 'http:',
    hostname: host.replace(/:\d+$/, ''),
    path: url.split('?')[0] ?? '/',
    query,
    headers,
  };
}

const signerFor = (credentials: S3Credentials, region: string) =>
  new SignatureV4({
    credentials,
    region,
    service: 's3',
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
  });

async function checkHeaderSignature(
  request: IncomingMessage,
  credentials: S3Credentials,
  query: Record<string, string | string[]>,
  now: number,
): Promise<S3Refusal | undefined> {
  const authorization = String(request.headers.authorization);
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
      authorization.trim(),
    );
  if (!match) {
    return authorization.startsWith(ALGORITHM)
      ? refusal(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.')
      : refusal(400, 'InvalidArgument', 'Only AWS Signature Version 4 (AWS4-HMAC-SHA256) is accepted.');
  }
  const [, credentialText, signedHeaders, signature] = match as unknown as [string, string, string, string];
  const date = parseAmzDate(request.headers['x-amz-date'] as string | undefined);
  if (!date) return refusal(403, 'AccessDenied', 'AWS authentication requires a valid x-amz-date header.');
  const credential = parseCredential(credentialText, date);
  if (!credential) return refusal(400, 'AuthorizationHeaderMalformed', 'The credential scope is malformed.');
  if (!sameText(credential.accessKeyId, credentials.accessKeyId)) {
    return refusal(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    );
  }
  if (Math.abs(now - date.getTime()) > MAX_SKEW_MS) {
    return refusal(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    );
  }
  const names = signedHeaders.split(';');
  const contentHash = request.headers['x-amz-content-sha256'];
  if (typeof contentHash !== 'string' || !names.includes('x-amz-content-sha256') || !names.includes('host')) {
    return refusal(400, 'InvalidRequest', 'The host and x-amz-content-sha256 headers must be signed.');
  }
  const signed = await signerFor(credentials, credential.region).sign(toSignable(request, query, names), {
    signingDate: date,
    signableHeaders: new Set(names),
  });
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1] ?? '';
  return sameText(expected, signature) ? undefined : mismatch();
}

async function checkQuerySignature(
  request: IncomingMessage,
  credentials: S3Credentials,
  query: Record<string, string | string[]>,
  now: number,
): Promise<S3Refusal | undefined> {
  const single = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
  const malformed = (message: string) => refusal(400, 'AuthorizationQueryParametersError', message);
  if (single('X-Amz-Algorithm') !== ALGORITHM)
    return malformed('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256".');
  const date = parseAmzDate(single('X-Amz-Date'));
  const expires = Number(single('X-Amz-Expires'));
  const signature = single('X-Amz-Signature') ?? '';
  const signedHeaders = single('X-Amz-SignedHeaders');
  if (!date || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    return malformed('X-Amz-Date must be a date and X-Amz-Expires a number of seconds from 1 to 604800.');
  }
  if (!/^[0-9a-f]{64}$/.test(signature) || !signedHeaders) {
    return malformed('A presigned request needs X-Amz-Signature and X-Amz-SignedHeaders.');
  }
  const credential = parseCredential(single('X-Amz-Credential'), date);
  if (!credential) return malformed('X-Amz-Credential is malformed.');
  if (!sameText(credential.accessKeyId, credentials.accessKeyId)) {
    return refusal(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    );
  }
  if (now > date.getTime() + expires * 1000) return refusal(403, 'AccessDenied', 'Request has expired');
  if (date.getTime() - now > MAX_SKEW_MS) return refusal(403, 'AccessDenied', 'Request is not valid yet');
  const names = signedHeaders.split(';');
  const rest = Object.fromEntries(Object.entries(query).filter(([name]) => !presignParams.includes(name)));
  const signable = toSignable(request, rest, names);
  // A presigned URL's payload is never signed; the signer reads that from this header and leaves
  // it out of the signed headers and the query it rebuilds.
  signable.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  const skip = new Set(['x-amz-content-sha256']);
  const presigned = await signerFor(credentials, credential.region).presign(signable, {
    signingDate: date,
    expiresIn: expires,
    signableHeaders: new Set(names),
    unsignableHeaders: skip,
    unhoistableHeaders: skip,
  });
  const expected = String(presigned.query?.['X-Amz-Signature'] ?? '');
  return sameText(expected, signature) ? undefined : mismatch();
}

/** Why S3 would refuse this request, or undefined when its signature holds. */
export async function checkS3Signature(
  request: IncomingMessage,
  credentials: S3Credentials,
  now = Date.now(),
): Promise<S3Refusal | undefined> {
  // A CORS preflight carries no credentials, at S3 as here.
  if (request.method === 'OPTIONS') return undefined;
  const url = request.url ?? '/';
  const query = parseQuery(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  if (!query) return refusal(400, 'InvalidArgument', 'The query string is not validly percent-encoded.');
  const byHeader = request.headers.authorization !== undefined;
  const byQuery = 'X-Amz-Algorithm' in query || 'X-Amz-Signature' in query;
  if (byHeader && byQuery) {
    return refusal(
      400,
      'InvalidArgument',
      'Only one auth mechanism allowed: the Authorization header or a presigned URL.',
    );
  }
  if (byHeader) return checkHeaderSignature(request, credentials, query, now);
  if (byQuery) return checkQuerySignature(request, credentials, query, now);
  if ('Signature' in query || 'AWSAccessKeyId' in query) {
    return refusal(400, 'InvalidArgument', 'Only AWS Signature Version 4 (AWS4-HMAC-SHA256) is accepted.');
  }
  return refusal(403, 'AccessDenied', 'Access Denied');
}

/** S3's error document for a refusal. Messages are fixed texts: nothing from the request is echoed. */
export function refusalXml(refusal: Pick<S3Refusal, 'code' | 'message'>, requestId: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${refusal.code}</Code><Message>${refusal.message}</Message>` +
    `<RequestId>${requestId}</RequestId></Error>`
  );
}
