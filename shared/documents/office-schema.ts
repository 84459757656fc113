import * as z from 'zod';
import { officeFormats } from '#shared/documents/office-limits.ts';

export const officeToPdfBody = z.strictObject({
  sourceUrl: z
    .string()
    .min(1)
    .max(4096)
    .describe(
      `An absolute http(s) URL of the document (${officeFormats.join(', ')}); the format is read from its bytes.`,
    ),
});
export type OfficeToPdfBody = z.infer<typeof officeToPdfBody>;
