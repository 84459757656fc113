import * as z from 'zod';
import { bufferedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, type RouteSpec } from '#shared/routes/types.ts';

const errorBody = z.object({ error: z.string(), message: z.string() });

export const jobView = z.object({
  jobId: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  progress: z.number().int().min(0).max(100),
  createdAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().optional(),
  resultUrl: z
    .url()
    .optional()
    .describe('A time-limited download link for the result (1 h by default, never past the job’s expiry).'),
  error: errorBody.optional(),
});

export const jobsRoute = defineRoute({
  method: 'GET',
  path: '/jobs/{jobId}',
  function: 'jobs',
  kind: 'system',
  sizing: bufferedSizing(256, false),
  jobStore: 'read',
  tag: 'Jobs',
  summary: 'Read an async job',
  description:
    'Only the API key that created the job may read it; any other key, an unknown id and a job older than 24 h answer 404. Without x-api-key: 401 missing_api_key. ' +
    'A job that does not finish within its function’s time fails with `media_too_long`. A job whose worker stopped without finishing (out of memory, or at the function’s timeout) reads as `failed` with `internal_error` once its heartbeat (stored every 20 s while it runs) is two minutes old, and the webhook is then sent by Lambda’s retry of the worker’s invocation. A job that could not start within an hour (every attempt to run it failed) reads as `failed` with `internal_error` from then on; no webhook is sent for it.',
  response: jobView,
  errors: ['missing_api_key', 'not_found'],
});

export const jobsRoutes: RouteSpec[] = [jobsRoute];
