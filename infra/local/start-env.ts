import * as z from 'zod';

/**
 * The environment `npm start` reads itself (the service's own variables are read by
 * shared/config.ts). Each message says what the value must be, so a bad one is reported in one
 * line that names it.
 */
const gatewayEnv = z.object({
  PORT: z.coerce
    .number({ error: 'must be a port number from 0 to 65535 (0 picks a free one)' })
    .int({ error: 'must be a port number from 0 to 65535 (0 picks a free one)' })
    .min(0, { error: 'must be a port number from 0 to 65535 (0 picks a free one)' })
    .max(65535, { error: 'must be a port number from 0 to 65535 (0 picks a free one)' })
    .default(3000),
  HOST: z
    .string()
    .min(1, { error: 'must be an address to listen on, such as 127.0.0.1' })
    .default('127.0.0.1'),
  API_KEYS: z.string().default(''),
  MARKETPLACE_PROXY_SECRET: z
    .string()
    .min(1, { error: 'must not be empty: set a secret, or leave it unset to require none' })
    .optional(),
  S3_ENDPOINT: z
    .url({
      protocol: /^https?$/,
      error: 'must be an http(s) URL of an S3-compatible server, or unset for the embedded one',
    })
    .optional(),
  S3_SECRET: z
    .string()
    .min(16, {
      error:
        'must be at least 16 characters, or unset to generate one (the embedded S3 server checks signatures with it)',
    })
    .optional(),
  WEBHOOK_SECRET: z
    .string()
    .min(16, {
      error:
        'must be at least 16 characters: use a long random value (openssl rand -hex 32), or leave it unset to generate one',
    })
    .optional(),
  /** `in-process` runs the handlers in the gateway's own process (for a debugger), unbounded. */
  LOCAL_ISOLATION: z
    .enum(['workers', 'in-process'], { error: 'must be workers (the default) or in-process' })
    .default('workers'),
  /** Most idle workers kept warm across all functions (the least recently used is ended first). */
  LOCAL_WARM_WORKERS: z.coerce
    .number({ error: 'must be an integer from 0 to 64' })
    .int({ error: 'must be an integer from 0 to 64' })
    .min(0, { error: 'must be an integer from 0 to 64' })
    .max(64, { error: 'must be an integer from 0 to 64' })
    .default(8),
  /** How long an idle worker stays warm. */
  LOCAL_IDLE_SECONDS: z.coerce
    .number({ error: 'must be an integer from 1 to 3600' })
    .int({ error: 'must be an integer from 1 to 3600' })
    .min(1, { error: 'must be an integer from 1 to 3600' })
    .max(3600, { error: 'must be an integer from 1 to 3600' })
    .default(60),
  /** What the gateway keeps between starts: the embedded S3 server's objects, the webhook secret. */
  LOCAL_STATE_DIR: z
    .string()
    .min(1, { error: 'must be a folder path, or unset for .local-state' })
    .optional(),
  JOBS_BUCKET: z
    .string()
    .min(3, { error: 'must be an S3 bucket name of 3 to 63 characters' })
    .default('jobs'),
});

export type GatewayEnv = z.infer<typeof gatewayEnv>;

/** The variables `npm start` reads itself (README's configuration table states each). */
export const gatewayVariables = Object.keys(gatewayEnv.shape);

/** A start-up failure whose message is the whole story: printed as it is, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

export function readGatewayEnv(env: NodeJS.ProcessEnv): GatewayEnv {
  const parsed = gatewayEnv.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  throw new StartupError(`Invalid environment: ${problems.join('; ')}.`);
}

/**
 * One line for whatever stopped the start: the variable or port at fault and what to do. A busy or
 * forbidden port is the common case; the service's own configuration (shared/config.ts) and
 * API_KEYS already name the variable in their messages.
 */
export function describeStartupFailure(error: unknown, where: { port: number; host: string }): string {
  const { code } = (error ?? {}) as { code?: string };
  const port = `PORT ${where.port} on ${where.host}`;
  if (code === 'EADDRINUSE') {
    return `${port} is already in use: stop the process that holds it, or set PORT to another port (PORT=0 picks a free one).`;
  }
  if (code === 'EACCES') return `${port} needs privileges this user lacks: set PORT to 1024 or above.`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `HOST ${where.host} is not an address of this machine: set HOST to 127.0.0.1, ::1 or 0.0.0.0.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split('\n')[0] ?? message;
  if (firstLine.startsWith('Invalid configuration') || firstLine.startsWith('API_KEYS')) {
    return `${firstLine} (README.md, "Configuration", lists what each variable takes).`;
  }
  return firstLine;
}
