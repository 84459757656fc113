import * as z from 'zod';
import { bufferedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec } from '#shared/routes/types.ts';
import { tierList } from '#shared/tiers.ts';

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
  output: z
    .object({ outputUrl: z.url(), sizeBytes: z.number().int().min(0), contentType: z.string() })
    .optional()
    .describe('Where the result was sent, for a job with `outputUrl` (the URL without its query).'),
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

/** `POST /uploads`: a file the client has, to be PUT into the service's store. */
export const uploadBody = z.strictObject({
  filename: z
    .string()
    .min(1)
    .max(255)
    .describe(
      'The file’s name; results are named after it. Characters other than letters, digits, `.`, `_` and `-` become `-`.',
    ),
  contentType: z
    .string()
    .max(255)
    .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/)
    .optional()
    .describe(
      'The Content-Type the PUT will carry (signed into uploadUrl); the format is read from the bytes anyway.',
    ),
  sizeBytes: z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .describe('The exact size of the file; the store refuses a PUT of any other length.'),
});

export const uploadTicket = z.object({
  uploadUrl: z
    .url()
    .describe('A presigned URL of the service’s bucket: PUT the file there within 15 minutes.'),
  method: z.literal('PUT'),
  headers: z
    .record(z.string(), z.string())
    .describe('Headers the PUT must carry exactly as given (they are signed into uploadUrl).'),
  sourceUrl: z
    .url()
    .describe(
      'A presigned download of the uploaded file, valid 24 hours: pass it as `sourceUrl` to any file route.',
    ),
  expiresAt: z.iso.datetime().describe('When uploadUrl stops accepting the PUT.'),
});

export const uploadsRoute = defineRoute({
  method: 'POST',
  path: '/uploads',
  function: 'uploads',
  kind: 'json',
  sizing: bufferedSizing(256, false),
  jobStore: 'upload',
  created: true,
  tierNeeds: fileRouteNeeds,
  tag: 'Jobs',
  summary: 'Upload a file to convert',
  description:
    `For a file without a public URL (${tierList(fileRouteNeeds.asyncJobs)}): answers 201 with a presigned \`uploadUrl\` into the service’s own bucket, valid 15 minutes, for exactly \`sizeBytes\` bytes; PUT the file there with the \`headers\` given (a body of another length is refused by the store), then pass \`sourceUrl\` (valid 24 hours) to any file route. The service reads its own upload links even where private addresses are refused as sources. ` +
    'Without x-api-key: 401 missing_api_key; a `sizeBytes` over the tier’s source size: 413 source_too_large, naming the tier that would take it.',
  body: uploadBody,
  response: uploadTicket,
  example: { filename: 'photo.png', contentType: 'image/png', sizeBytes: 48213 },
  errors: ['missing_api_key', 'insufficient_permissions', 'source_too_large'],
});

export const jobsRoutes: RouteSpec[] = [jobsRoute, uploadsRoute];
