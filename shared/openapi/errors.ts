import type { ErrorCode } from '#shared/errors.ts';
import { errorStatus } from '#shared/http/errors.ts';
import type { RouteSpec } from '#shared/routes/types.ts';

/** What each code means and a message of the kind the service sends with it. */
export const errorMeanings: Readonly<Record<ErrorCode, { meaning: string; message: string }>> = {
  invalid_json: { meaning: 'The body is not valid JSON.', message: 'The request body is not valid JSON.' },
  validation_failed: {
    meaning:
      'A field is missing, of the wrong type, out of range or unknown; the message names every one by path.',
    message: 'text: expected string, received number; maxLenght: unknown field',
  },
  invalid_input: {
    meaning: 'The input text is not valid in the named encoding.',
    message: 'The text is not valid base64.',
  },
  source_invalid_url: {
    meaning: 'A source (or callback) URL is not an absolute http: or https: URL.',
    message: 'sourceUrl must be an absolute http: or https: URL.',
  },
  source_redirect: {
    meaning: 'The source answered with a redirect; redirects are never followed.',
    message: 'The source answered 302 (a redirect); redirects are not followed.',
  },
  source_bad_status: {
    meaning: 'The source answered with a status other than 200.',
    message: 'The source answered 404.',
  },
  source_blocked_address: {
    meaning:
      'The source host resolves to a loopback, private, link-local, unique-local, CGNAT, multicast, unspecified or reserved address.',
    message: 'The source host resolves to a private address.',
  },
  source_unreachable: {
    meaning: 'The source host could not be resolved or connected to.',
    message: 'The source could not be reached.',
  },
  unsupported_input_format: {
    meaning: 'The bytes of the source are no supported input for this operation (the format is sniffed).',
    message: 'The source is a zip file, which this operation does not take.',
  },
  unsupported_output_format: {
    meaning: 'The output format cannot be produced; the message names the alternatives.',
    message: 'No HEIC encoder is available; use avif or webp.',
  },
  invalid_source_file: {
    meaning: 'The source is of a supported format but cannot be decoded, or is a pixel bomb.',
    message: 'The source file is damaged or cannot be decoded.',
  },
  encrypted_pdf: {
    meaning: 'The PDF is encrypted and its content cannot be read: send its `password`.',
    message: 'The PDF is encrypted.',
  },
  invalid_password: {
    meaning: 'The `password` sent is neither the user nor the owner password of the encrypted PDF.',
    message: 'The password is wrong: it is neither the user nor the owner password of this PDF.',
  },
  invalid_range: {
    meaning: 'A page range is malformed or lies outside the document.',
    message: 'Page 9 is outside the document (4 pages).',
  },
  no_audio_stream: { meaning: 'The source has no audio stream.', message: 'The source has no audio stream.' },
  no_video_stream: { meaning: 'The source has no video stream.', message: 'The source has no video stream.' },
  decrypt_failed: {
    meaning: 'Wrong passphrase, or the ciphertext was tampered with.',
    message: 'Wrong passphrase or tampered data.',
  },
  invalid_api_key: {
    meaning: 'The x-api-key is unknown or revoked.',
    message: 'The x-api-key is unknown or revoked.',
  },
  missing_api_key: {
    meaning: 'The operation needs an x-api-key (async jobs, job status).',
    message: 'Async jobs need an x-api-key of the pro or enterprise tier.',
  },
  invalid_proxy_secret: {
    meaning:
      'The service requires the marketplace proxy secret: it is missing (with an x-api-key) or wrong (always).',
    message: 'The x-marketplace-proxy-secret header is missing or wrong.',
  },
  insufficient_permissions: {
    meaning: "The key's tier does not include the feature (async jobs need pro or enterprise).",
    message: 'Async jobs need the pro tier or higher.',
  },
  not_found: { meaning: 'Nothing is found at that address.', message: 'No such job.' },
  method_not_allowed: {
    meaning: 'The path exists but answers another method (see Allow).',
    message: '/slugify answers POST, OPTIONS.',
  },
  request_too_large: {
    meaning: 'The request body is over 1 MiB.',
    message: 'The request body is over 1048576 bytes.',
  },
  source_too_large: {
    meaning: 'The source is larger than the tier allows; the message names the tier that lifts the limit.',
    message: 'The source is over 20000000 bytes, the free tier limit; the pro tier allows more.',
  },
  media_too_long: {
    meaning:
      'The media is longer than the tier allows (the message names the tier that lifts the limit), or a conversion or async job did not finish within its processing time, the same on every tier.',
    message: 'The media lasts 300 s, over the 120 s of the free tier; the pro tier allows more.',
  },
  unsupported_media_type: {
    meaning: 'The request Content-Type is not application/json.',
    message: 'Send the request body as Content-Type: application/json.',
  },
  rate_limit_exceeded: {
    meaning: "Over the tier's requests per minute (sliding 60 s window); retry after Retry-After seconds.",
    message: 'Over 10 requests per minute for the free tier; retry in 12 s.',
  },
  internal_error: {
    meaning: 'An unexpected failure; the message carries the request id to quote.',
    message: 'Unexpected error; quote request id 3f1c2a7e-0b1d-4c52-9a61-2f0e8d4b7c10 when reporting it.',
  },
  engine_unavailable: {
    meaning:
      'An engine the route needs (ffmpeg, qpdf, Chromium, LibreOffice) is missing or broken on this server; the message names it, and GET /status shows it as unavailable.',
    message:
      'LibreOffice is not available on this server, so this route cannot run now; GET /status lists the engines.',
  },
  source_timeout: {
    meaning: 'The source did not answer completely within the download timeout (30 s by default).',
    message: 'The source did not answer within 30000 ms.',
  },
  render_timeout: {
    meaning: 'A page could not be printed or captured in time: a script on it kept the browser busy.',
    message: 'The page could not be rendered in time: a script on it kept the browser busy.',
  },
  idempotency_key_reused: {
    meaning:
      'The Idempotency-Key was already used by this API key within 24 h for another request body; send a new key for a new request.',
    message:
      'Idempotency-Key "order-42" was used within 24 h for another request; use a new key for this one.',
  },
  output_upload_failed: {
    meaning:
      'The result could not be sent to outputUrl: the destination refused it (its status is quoted), redirected, did not answer in time or could not be reached.',
    message:
      'The destination refused the result with HTTP 403 Forbidden; check that outputUrl is a valid presigned PUT URL.',
  },
};

/** What any route can answer, whatever its row says: authentication, rate limit, failure. */
export const everyRouteErrors: readonly ErrorCode[] = [
  'invalid_api_key',
  'invalid_proxy_secret',
  'rate_limit_exceeded',
  'internal_error',
];

/** What the JSON body checks of every POST route can answer. */
export const postRouteErrors: readonly ErrorCode[] = [
  'invalid_json',
  'unsupported_media_type',
  'request_too_large',
  'validation_failed',
  ...everyRouteErrors,
];

/** Every error code a route can answer, ordered by status then by first mention. */
export function routeErrors(route: RouteSpec, extra: readonly ErrorCode[] = []): ErrorCode[] {
  const common = route.method === 'POST' ? postRouteErrors : everyRouteErrors;
  const codes = [...new Set([...common, ...route.errors, ...extra])].filter(
    // A route that costs no quota is never refused for the rate limit.
    (code) => !(route.quotaFree && code === 'rate_limit_exceeded'),
  );
  return codes.sort((a, b) => errorStatus[a] - errorStatus[b]);
}

/** The codes grouped by their HTTP status. */
export function byStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorStatus[code];
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return groups;
}
