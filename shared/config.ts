import * as z from 'zod';

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

const envSchema = z.object({
  SOURCE_ALLOW_PRIVATE: flag,
  SOURCE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  QPDF_PATH: z.string().min(1).optional(),
  /** Set by Lambda (and the local gateway) to the function's memory size; sizes ffmpeg's memory limit. */
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: z.coerce.number().int().positive().optional(),
  SERVICE_VERSION: z.string().min(1).default('0.1.0'),
  LOG_LEVEL: z.enum(['silent', 'error', 'info', 'debug']).default('info'),
  /**
   * `json`: one JSON line per event, the request line carrying its metrics (what CloudWatch reads).
   * `text`: one short readable line per event, for a terminal (`npm start` chooses it there).
   */
  LOG_FORMAT: z.enum(['json', 'text']).default('json'),
  /** Async jobs: the bucket for job records and results, and where S3 and Lambda are reached. */
  JOBS_BUCKET: z.string().min(3).default('jobs'),
  S3_ENDPOINT: z.url().optional(),
  LAMBDA_ENDPOINT: z.url().optional(),
  /** The key of webhook signatures; when unset, read from the Secrets Manager secret named next. */
  WEBHOOK_SECRET: z.string().min(16).optional(),
  WEBHOOK_SECRET_ARN: z.string().min(1).optional(),
  /** Pauses before each webhook retry. */
  WEBHOOK_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/)
    .default('2000,10000,30000')
    .transform((list) => list.split(',').map(Number)),
  JOB_RESULT_URL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
});

export type Config = z.infer<typeof envSchema>;

/** Parses the environment; a misconfigured function fails here, at init, with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

export const config: Config = loadConfig(process.env);
