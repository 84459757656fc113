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

export const outputUrlField = z
  .string()
  .meta(httpUrlMeta)
  .describe(
    `Send the result here with PUT (${tierList(fileRouteNeeds.asyncJobs)}): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.`,
  );

/** Every file route's body, plus the optional `callbackUrl` of async jobs and `outputUrl` of exports. */
export function withCallback<S extends z.ZodObject>(schema: S) {
  const extended = schema.safeExtend({
    callbackUrl: callbackUrlField.optional(),
    outputUrl: outputUrlField.optional(),
  });
  // The rules between fields that the body states for the document (`.meta`) hold for it still.
  const rules = schema.meta();
  return rules ? extended.meta(rules) : extended;
}
