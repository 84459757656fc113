import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the local gateway keeps between starts, in one folder (LOCAL_STATE_DIR, by default
 * `.local-state` in the project, which git ignores): the embedded S3 server's objects (job records
 * and results, `s3/`) and the webhook secret it generated (`webhook-secret`). `npm run samples`
 * reads the secret from there to check the signatures its `/hook` receives.
 */
export const defaultStateDir = fileURLToPath(new URL('../../.local-state', import.meta.url));

export const stateDirOf = (env: { LOCAL_STATE_DIR?: string | undefined }): string =>
  env.LOCAL_STATE_DIR ? resolve(env.LOCAL_STATE_DIR) : defaultStateDir;

export const s3DirOf = (stateDir: string) => join(stateDir, 's3');

const secretFileOf = (stateDir: string) => join(stateDir, 'webhook-secret');

/** The webhook secret this machine generated earlier, if any. */
export async function storedWebhookSecret(stateDir: string): Promise<string | undefined> {
  try {
    const secret = (await readFile(secretFileOf(stateDir), 'utf8')).trim();
    return secret.length >= 16 ? secret : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The webhook secret of a gateway started without WEBHOOK_SECRET: the one generated at an earlier
 * start, or a new one, kept (readable by this user only) so that signatures stay checkable across
 * restarts.
 */
export async function localWebhookSecret(stateDir: string): Promise<{ secret: string; file: string }> {
  const file = secretFileOf(stateDir);
  const stored = await storedWebhookSecret(stateDir);
  if (stored) return { secret: stored, file };
  const secret = randomBytes(32).toString('hex');
  await mkdir(stateDir, { recursive: true });
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return { secret, file };
}
