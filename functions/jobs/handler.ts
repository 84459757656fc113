import { jsonResponse } from '#shared/http/respond.ts';
import { createGetHandler } from '#shared/http/stack.ts';
import { readJob } from '#shared/jobs/read.ts';
import { jobsRoute } from '#shared/routes/jobs.ts';

export const handler = createGetHandler(jobsRoute, async ({ params, caller }) =>
  jsonResponse(200, await readJob(params.jobId ?? '', caller)),
);
