import { createJsonHandler } from '#shared/http/stack.ts';
import { createUpload } from '#shared/jobs/uploads.ts';
import { uploadsRoute } from '#shared/routes/jobs.ts';

export const handler = createJsonHandler(uploadsRoute, ({ body, caller, limits }) =>
  createUpload(body, caller, limits),
);
