import * as z from 'zod';
import { officeFormats } from '#shared/documents/office-limits.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

export const officeToPdfBody = z.strictObject({
  sourceUrl: httpUrlField().describe(
    `An absolute http(s) URL of the document (${officeFormats.join(', ')}); the format is read from its bytes.`,
  ),
});
export type OfficeToPdfBody = z.infer<typeof officeToPdfBody>;
