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

/** What a callbackUrl adds: the tier check and the callback URL check (done like a source's). */
export const asyncJobErrors: readonly ErrorCode[] = [
  'missing_api_key',
  'insufficient_permissions',
  'source_invalid_url',
  'source_blocked_address',
];

/** The note of an async-capable operation, naming the tiers its row lets run jobs. */
export const asyncJobsNote = (route: RouteSpec) =>
  `With \`callbackUrl\` (${tierList(route.tierNeeds?.asyncJobs ?? [])}) the request is answered 202 at once and runs as an async job: poll \`statusUrl\`; the finished job is POSTed to \`callbackUrl\`, signed with \`X-Signature\`.`;

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
