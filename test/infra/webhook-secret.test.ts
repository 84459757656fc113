import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeAws, startFakeAws } from './fake-aws.ts';

const secretArn =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:FileConversionApi-WebhookSecret-AbCdEf';
let aws: FakeAws;

beforeAll(async () => {
  aws = await startFakeAws();
});

afterAll(() => aws?.close());

beforeEach(() => {
  aws.calls.length = 0;
  aws.secrets.clear();
  // The SDK reaches the fake through the standard endpoint override, with made-up credentials.
  vi.stubEnv('AWS_ENDPOINT_URL', aws.endpoint);
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAFAKEFAKEFAKEFAKE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fake-secret-access-key');
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  vi.stubEnv('WEBHOOK_SECRET', undefined);
  vi.stubEnv('WEBHOOK_SECRET_ARN', undefined);
});

afterEach(() => vi.unstubAllEnvs());

/** A fresh container: configuration parsed and the cache empty. */
async function freshWebhookSecret() {
  vi.resetModules();
  return (await import('#shared/jobs/webhook-secret.ts')).webhookSecret;
}

const reads = () => aws.calls.filter((call) => call.service === 'secretsmanager');

describe('the webhook signing key', () => {
  it('is read from Secrets Manager when only the ARN is set, once per container', async () => {
    aws.secrets.set(secretArn, 'generated-by-the-stack-48-characters-long-000000');
    vi.stubEnv('WEBHOOK_SECRET_ARN', secretArn);
    const webhookSecret = await freshWebhookSecret();

    const [first, second] = await Promise.all([webhookSecret(), webhookSecret()]);
    expect([first, second, await webhookSecret()]).toEqual(Array(3).fill(aws.secrets.get(secretArn)));
    expect(reads()).toEqual([
      { service: 'secretsmanager', operation: 'GetSecretValue', input: { SecretId: secretArn } },
    ]);
  });

  it('comes from WEBHOOK_SECRET when that is set, without asking Secrets Manager', async () => {
    aws.secrets.set(secretArn, 'the-deployed-value-0000000000');
    vi.stubEnv('WEBHOOK_SECRET', 'a-local-secret-of-enough-length');
    vi.stubEnv('WEBHOOK_SECRET_ARN', secretArn);
    const webhookSecret = await freshWebhookSecret();

    expect(await webhookSecret()).toBe('a-local-secret-of-enough-length');
    expect(reads()).toEqual([]);
  });

  it('forgets a failed read, so the next job tries again', async () => {
    vi.stubEnv('WEBHOOK_SECRET_ARN', secretArn);
    const webhookSecret = await freshWebhookSecret();

    await expect(webhookSecret()).rejects.toThrow(/can't find the specified secret/);
    aws.secrets.set(secretArn, 'created-after-the-first-read-000');
    expect(await webhookSecret()).toBe('created-after-the-first-read-000');
    expect(reads()).toHaveLength(2);
  });

  it('refuses to sign with nothing configured', async () => {
    const webhookSecret = await freshWebhookSecret();
    await expect(webhookSecret()).rejects.toThrow(
      'Neither WEBHOOK_SECRET nor WEBHOOK_SECRET_ARN is configured',
    );
    expect(reads()).toEqual([]);
  });
});
