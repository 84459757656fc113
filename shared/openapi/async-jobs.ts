import * as z from 'zod';
import type { ErrorCode } from '#shared/errors.ts';
import { withCallback } from '#shared/jobs/callback.ts';
import type { RouteSpec } from '#shared/routes/types.ts';
import { type TierName, tierList, tierNames } from '#shared/tiers.ts';

/** The 202 answer of a file route called with `callbackUrl`. */
export const jobAccepted = z.object({
  jobId: z.string(),
  status: z.literal('queued'),
  statusUrl: z.string().describe('Where to poll the job: `/jobs/<jobId>`, relative to the API base URL.'),
});

/**
 * What callbackUrl, outputUrl and Idempotency-Key add: the tier check, the destination checks (done
 * like a source's), the export's failure and a reused key.
 */
export const asyncJobErrors: readonly ErrorCode[] = [
  'missing_api_key',
  'insufficient_permissions',
  'source_invalid_url',
  'source_blocked_address',
  'idempotency_key_reused',
  'output_upload_failed',
];

/** The answer of a file route called with `outputUrl`. */
export const outputSent = z.object({
  outputUrl: z.url().describe('Where the result was sent, without the query of the URL given.'),
  sizeBytes: z.number().int().min(0),
  contentType: z.string(),
});

/** The header of safe retries, as an operation parameter. */
export const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
};

/** The note of an async-capable operation, naming the tiers its row lets run jobs. */
export const asyncJobsNote = (route: RouteSpec) =>
  `With \`callbackUrl\` (${tierList(route.tierNeeds?.asyncJobs ?? [])}) the request is answered 202 at once and runs as an async job: poll \`statusUrl\`; the finished job is POSTed to \`callbackUrl\`, signed with \`X-Signature\`. With \`outputUrl\` (the same tiers) the result is sent there with PUT and the answer is 200 \`{outputUrl, sizeBytes, contentType}\`; a destination that refuses, redirects or does not answer in time → 502 \`output_upload_failed\`.`;

/** File routes accept the optional `callbackUrl` of async jobs (see `createFileHandler`). */
export const isAsyncCapable = (route: RouteSpec) =>
  route.kind === 'file' && route.body instanceof z.ZodObject;

/** The tiers that may run some route of the table as an async job, by the rows' tier needs. */
export const asyncJobTiers = (routes: readonly RouteSpec[]): TierName[] =>
  tierNames.filter((tier) =>
    routes.some((route) => isAsyncCapable(route) && route.tierNeeds?.asyncJobs.includes(tier)),
  );

/** The body a file route really validates: its own schema plus `callbackUrl`. */
export function documentedBody(route: RouteSpec): z.ZodType | undefined {
  if (route.body instanceof z.ZodObject && isAsyncCapable(route)) return withCallback(route.body);
  return route.body;
}
