import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { startLambdaApi } from './lambda-api.ts';
import { startEmbeddedS3 } from './s3.ts';

/**
 * `npm start`: the local gateway, configured by the environment variables of the contract.
 * The embedded S3 server and the Lambda API start first, because the service's configuration
 * (read once, when its modules load) names their endpoints.
 */
const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    API_KEYS: z.string().default(''),
    MARKETPLACE_PROXY_SECRET: z.string().min(1).optional(),
    S3_ENDPOINT: z.url().optional(),
    WEBHOOK_SECRET: z.string().min(16).optional(),
    JOBS_BUCKET: z.string().min(3).default('jobs'),
  })
  .parse(process.env);

const s3 = env.S3_ENDPOINT ? undefined : await startEmbeddedS3([env.JOBS_BUCKET]);
if (s3) {
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
}
process.env.AWS_REGION ??= 'us-east-1';
process.env.JOBS_BUCKET = env.JOBS_BUCKET;
process.env.WEBHOOK_SECRET = env.WEBHOOK_SECRET ?? randomBytes(32).toString('hex');

const functionExists = (name: string) =>
  existsSync(new URL(`../../functions/${name}/handler.ts`, import.meta.url));
const lambdaApi = await startLambdaApi(functionExists, (name, payload) => {
  void import('./run-apart.ts').then(({ runApart }) => runApart(name, payload));
});
process.env.LAMBDA_ENDPOINT = lambdaApi.endpoint;

const { batchLogLines } = await import('#shared/log.ts');
batchLogLines();
const { startGateway } = await import('./gateway.ts');
const gateway = await startGateway({
  port: env.PORT,
  host: env.HOST,
  apiKeys: env.API_KEYS,
  proxySecret: env.MARKETPLACE_PROXY_SECRET,
});
process.stdout.write(`Listening on ${gateway.url} (S3 at ${process.env.S3_ENDPOINT})\n`);

const stop = async () => {
  await gateway.close();
  await lambdaApi.close();
  await s3?.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
