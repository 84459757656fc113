import * as z from 'zod';
import { fileRouteNeeds } from '#shared/routes/types.ts';
import { httpUrlMeta } from '#shared/source/url-schema.ts';
import { tierList } from '#shared/tiers.ts';

export const callbackUrlField = z
  .string()
  .meta(httpUrlMeta)
  .describe(
    `Run as an async job (${tierList(fileRouteNeeds.asyncJobs)}): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.`,
  );

/** Every file route's body, plus the optional `callbackUrl` of async jobs. */
export function withCallback<S extends z.ZodObject>(schema: S) {
  const extended = schema.safeExtend({ callbackUrl: callbackUrlField.optional() });
  // The rules between fields that the body states for the document (`.meta`) hold for it still.
  const rules = schema.meta();
  return rules ? extended.meta(rules) : extended;
}
