import { z } from 'zod';

export const callbackUrlField = z
  .string()
  .describe(
    'Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.',
  );

/** Every file route's body, plus the optional `callbackUrl` of async jobs. */
export function withCallback<S extends z.ZodObject>(schema: S) {
  return schema.safeExtend({ callbackUrl: callbackUrlField.optional() });
}
