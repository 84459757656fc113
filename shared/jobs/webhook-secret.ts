import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '#shared/config.ts';

/** Read once per container: the value only changes by a hand rotation, announced to customers. */
let cached: Promise<string> | undefined;

async function readSecret(secretId: string): Promise<string> {
  const client = new SecretsManagerClient({});
  try {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    // An empty key would sign every webhook with a value anyone can compute.
    if (!answer.SecretString) throw new Error(`The webhook secret ${secretId} has no string value`);
    return answer.SecretString;
  } finally {
    client.destroy();
  }
}

/**
 * The key of the `X-Signature` HMAC: WEBHOOK_SECRET when set (local runs and tests), else the
 * Secrets Manager secret WEBHOOK_SECRET_ARN names (the deployed stack gives only the ARN). A failed
 * read is not remembered, so the next job tries again.
 */
export function webhookSecret(): Promise<string> {
  if (config.WEBHOOK_SECRET) return Promise.resolve(config.WEBHOOK_SECRET);
  const secretId = config.WEBHOOK_SECRET_ARN;
  if (!secretId)
    return Promise.reject(new Error('Neither WEBHOOK_SECRET nor WEBHOOK_SECRET_ARN is configured'));
  cached ??= readSecret(secretId).catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}
