import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Gateway } from './gateway.ts';
import { startLambdaApi } from './lambda-api.ts';
import { startEmbeddedS3 } from './s3.ts';
import { describeStartupFailure, readGatewayEnv } from './start-env.ts';

/**
 * `npm start`: the local gateway, configured by the environment variables of the contract.
 * The embedded S3 server and the Lambda API start first, because the service's configuration
 * (read once, when its modules load) names their endpoints. Whatever stops the start is reported
 * in one line that names the variable or port at fault, without a stack trace.
 */
let listenAt = { port: Number(process.env.PORT) || 3000, host: process.env.HOST || '127.0.0.1' };
try {
  await start();
} catch (error) {
  process.stderr.write(`npm start: ${describeStartupFailure(error, listenAt)}\n`);
  process.exit(1);
}

async function start(): Promise<void> {
  const env = readGatewayEnv(process.env);
  listenAt = { port: env.PORT, host: env.HOST };

  const s3 = env.S3_ENDPOINT
    ? undefined
    : await startEmbeddedS3([env.JOBS_BUCKET], { secretAccessKey: env.S3_SECRET });
  if (s3) {
    process.env.S3_ENDPOINT = s3.endpoint;
    process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
  }
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.JOBS_BUCKET = env.JOBS_BUCKET;
  process.env.WEBHOOK_SECRET = env.WEBHOOK_SECRET ?? randomBytes(32).toString('hex');

  // Async invocations run as the gateway runs functions: in the function's own pool of workers.
  let gateway: Gateway | undefined;
  const functionExists = (name: string) =>
    existsSync(new URL(`../../functions/${name}/handler.ts`, import.meta.url));
  const lambdaApi = await startLambdaApi(functionExists, (name, payload) =>
    gateway?.invokeAsync(name, payload),
  );
  process.env.LAMBDA_ENDPOINT = lambdaApi.endpoint;

  const { batchLogLines } = await import('#shared/log.ts');
  batchLogLines();
  const { startGateway } = await import('./gateway.ts');
  gateway = await startGateway({
    port: env.PORT,
    host: env.HOST,
    apiKeys: env.API_KEYS,
    proxySecret: env.MARKETPLACE_PROXY_SECRET,
    isolation: env.LOCAL_ISOLATION,
  });
  process.stdout.write(`Listening on ${gateway.url} (S3 at ${process.env.S3_ENDPOINT})\n`);

  // Workers are ended at once (a spinning one would never finish); a second signal does not wait.
  const running = gateway;
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => process.exit(0), 2000).unref();
    void Promise.allSettled([running.close(), lambdaApi.close(), s3?.close()]).then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // `npm start` runs this through a shell that does not pass SIGTERM on: when npm is told to stop,
  // the shell ends and this process is handed to another parent. That, too, means stop.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 250).unref();
}
