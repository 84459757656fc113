import type { ErrorCode } from '#shared/errors.ts';
import { errorStatus } from '#shared/http/errors.ts';
import { errorMeanings } from '#shared/openapi/errors.ts';
import { formatAliases } from '#shared/source/formats.ts';
import { type TierLimits, type TierName, tierList, tierNames, tiers } from '#shared/tiers.ts';

/** What the document knows about the routes it describes, to say only what applies to them. */
export interface Coverage {
  /** Some route downloads a `sourceUrl` or `sources`. */
  downloadsSources: boolean;
  /** The tiers that may run some file route as an async job, when `/jobs/{jobId}` is there; else none. */
  asyncJobTiers: readonly TierName[];
  /** Every error code some operation documents. */
  errorCodes: readonly ErrorCode[];
}

const megabytes = (bytes: number) => (bytes >= 1e9 ? `${bytes / 1e9} GB` : `${bytes / 1e6} MB`);
const duration = (seconds: number) => (seconds < 600 ? `${seconds} s` : `${seconds / 60} min`);

const tierWho: Record<TierName, string> = {
  free: 'no `x-api-key`',
  pro: 'key of tier pro',
  enterprise: 'key of tier enterprise',
};

function rate(name: TierName, limits: TierLimits): string {
  if (name === 'free') return `${limits.requestsPerMinute} per client IP`;
  if (name === 'enterprise') return `per key, configured (default ${limits.requestsPerMinute})`;
  return `${limits.requestsPerMinute} per key`;
}

function tierTable(asyncJobTiers: readonly TierName[]): string {
  const rows = tierNames.map((name) => {
    const limits = tiers[name];
    return `| ${name} | ${tierWho[name]} | ${rate(name, limits)} | ${megabytes(limits.maxSourceBytes)} | ${duration(limits.maxMediaSeconds)} | ${limits.maxBatchFiles} | ${asyncJobTiers.includes(name) ? 'yes' : 'no'} |`;
  });
  return [
    '| Tier | Who | Requests / minute | Max source size | Max media duration | Max files per batch | Async jobs |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function errorTable(codes: readonly ErrorCode[]): string {
  const sorted = [...codes].sort((a, b) => errorStatus[a] - errorStatus[b] || a.localeCompare(b));
  return [
    '| Status | Code | Meaning |',
    '|---|---|---|',
    ...sorted.map((code) => `| ${errorStatus[code]} | \`${code}\` | ${errorMeanings[code].meaning} |`),
  ].join('\n');
}

const aliases = Object.entries(formatAliases)
  .map(([alias, name]) => `\`${alias}\` is an alias of \`${name}\``)
  .join(', ');

/** The document's `info.description`: the conventions every operation shares, in Markdown. */
export function apiDescription(coverage: Coverage): string {
  const sections = [
    `File conversion and utility API: images, PDFs, audio and video, text and crypto. File routes download their input from a URL and answer with the converted file itself.`,
    `## Conventions
- Requests are \`POST\` with \`Content-Type: application/json\` (a \`charset\` parameter is allowed), except the \`GET\` system routes. A body that is not valid JSON → 400 \`invalid_json\`; another content type → 415 \`unsupported_media_type\`; a body over 1 MiB → 413 \`request_too_large\`. Unknown fields are rejected (400 \`validation_failed\`), so a typo never silently does nothing; the message names every offending field by its path. An empty body counts as \`{}\`.
- JSON answers are \`application/json; charset=utf-8\`. File answers are the file itself (never base64 or JSON wrapped) with its \`Content-Type\`, \`Content-Length\` where known and \`Content-Disposition: inline; filename="<source base name>.<ext>"\`. Several output files come back as one \`application/zip\`.
- Unknown paths → 404 \`not_found\`; a known path with another method → 405 \`method_not_allowed\` with \`Allow\`. A path with a trailing slash reaches the same route, as API Gateway routes it (\`/docs/\` serves the docs page). The local gateway answers \`HEAD\` on a \`GET\` route as \`GET\` without the body.
- A function that gives no answer within its time limit (29 s for JSON routes) → 504, one that runs out of its memory → 502, both with \`internal_error\` and the request id, as API Gateway answers them; the local gateway runs each function in worker processes with the same memory size and time limit.
- Every answer carries \`X-Request-Id\`. CORS is open (\`Access-Control-Allow-Origin: *\`) and preflight \`OPTIONS\` works on every path.
- Errors are always \`{"error": "<code>", "message": "<text>"}\`, never a stack trace or an internal path.
- Formats are lowercase names; ${aliases}.`,
    `## Authentication and tiers
A request without \`x-api-key\` is the free tier. An unknown or revoked key → 401 \`invalid_api_key\`. When the deployment is configured with a marketplace proxy secret, a request that carries \`x-api-key\` must carry the matching \`x-marketplace-proxy-secret\`, and a wrong secret is refused with or without a key (403 \`invalid_proxy_secret\`). Limits that a tier sets answer with their own codes, and the message names the tier that would lift the limit.

${tierTable(coverage.asyncJobTiers)}

Over the rate limit (a sliding 60 s window) → 429 \`rate_limit_exceeded\` with \`Retry-After\` in seconds. The local gateway also sends \`RateLimit-Policy\` and \`RateLimit\` (IETF httpapi ratelimit-headers draft) on every answer, preflights, 404 and 405 included (these show the caller's standing and are not counted); in AWS, API Gateway usage plans enforce the limits.`,
  ];
  if (coverage.downloadsSources) {
    sections.push(`## Source download (every \`sourceUrl\` and every entry of \`sources\`)
1. Only absolute \`http:\` and \`https:\` URLs (else 400 \`source_invalid_url\`).
2. Redirects are not followed: a 3xx answer → 400 \`source_redirect\`.
3. Only status 200 is accepted: anything else → 400 \`source_bad_status\`, its message quoting the status.
4. The host is resolved once and the connection goes to the checked address. Loopback, private, link-local, unique-local, CGNAT, multicast, unspecified and reserved addresses (IPv4 embedded in IPv6 included) → 400 \`source_blocked_address\`.
5. Connection failure → 400 \`source_unreachable\`; no complete answer within the download timeout (30 s by default) → 504 \`source_timeout\`.
6. The body is counted while it streams to a temporary file: past the tier's size limit → 413 \`source_too_large\` (a \`Content-Length\` over the limit is refused before reading).
7. The real format is sniffed from the bytes, not from the URL or \`Content-Type\`. Bytes that are no supported input for the operation → 400 \`unsupported_input_format\`; a supported format that cannot be decoded → 400 \`invalid_source_file\`.`);
  }
  if (coverage.asyncJobTiers.length > 0) {
    sections.push(`## Async jobs (${tierList(coverage.asyncJobTiers)})
Any file route accepts an optional \`callbackUrl\` (\`https:\`, checked like a source). The answer is then 202 \`{jobId, status: "queued", statusUrl: "/jobs/<jobId>"}\` at once and the conversion runs apart. \`GET /jobs/{jobId}\` shows its status, progress and, when done, a time-limited \`resultUrl\`; only the key that created the job may read it. On completion the service POSTs the same JSON to \`callbackUrl\` with \`X-Signature: sha256=<hex HMAC-SHA256 of the raw body>\` (the deployment's webhook secret) and retries with backoff. A job that does not finish within its function's time fails with 413 \`media_too_long\`, as a conversion that does not finish in time. Jobs and results expire after 24 h. Without a key → 401 \`missing_api_key\`; a key whose tier lacks async jobs → 403 \`insufficient_permissions\`.`);
    sections.push(`## Uploads, exports and safe retries (${tierList(coverage.asyncJobTiers)})
- **Uploads.** \`POST /uploads\` with \`{filename, contentType?, sizeBytes}\` → 201 \`{uploadUrl, method: "PUT", headers, sourceUrl, expiresAt}\`. PUT the file to \`uploadUrl\` (the service's own bucket, valid 15 minutes) with exactly the \`headers\` given: the store refuses a body of another length. Then pass \`sourceUrl\` (a download link valid 24 hours) to any file route. The service reads its own upload links even where private sources are refused. A \`sizeBytes\` over the tier's source size → 413 \`source_too_large\`.
- **Exports.** Every file route accepts an optional \`outputUrl\` (a presigned S3, GCS or Azure upload URL; \`https:\`, checked like a source: public address, pinned, no redirects). The result is sent there with one \`PUT\` carrying its \`Content-Type\` and \`Content-Length\`, and the answer is 200 \`{outputUrl, sizeBytes, contentType}\` (the URL without its query). A destination that refuses, redirects (never followed), does not answer within the source timeout or cannot be reached → 502 \`output_upload_failed\`, quoting the status it gave. With \`callbackUrl\` the job's result goes to \`outputUrl\`, and the job shows it as \`output\`.
- **Safe retries.** A request that creates a job may carry \`Idempotency-Key\` (1–255 visible ASCII characters, else 400 \`validation_failed\`). The same key from the same API key within 24 hours answers the first job's 202 again, without a second job; the same key with another body → 422 \`idempotency_key_reused\`.`);
  }
  sections.push(`## Error codes\n${errorTable(coverage.errorCodes)}`);
  return sections.join('\n\n');
}
