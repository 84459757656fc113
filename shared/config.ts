import { z } from 'zod';

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

const envSchema = z.object({
  SOURCE_ALLOW_PRIVATE: flag,
  SOURCE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  SERVICE_VERSION: z.string().min(1).default('0.1.0'),
  LOG_LEVEL: z.enum(['silent', 'error', 'info', 'debug']).default('info'),
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
