import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { Gateway } from './gateway.ts';
import { startLambdaApi } from './lambda-api.ts';
import { startEmbeddedS3 } from './s3.ts';
import { missingEngineLines } from './start-engines.ts';
import { describeStartupFailure, readGatewayEnv } from './start-env.ts';
import { localWebhookSecret, s3DirOf, stateDirOf } from './state.ts';
import { stopOnSignals } from './stop-signals.ts';

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
  const startedAt = Date.now();
  const env = readGatewayEnv(process.env);
  listenAt = { port: env.PORT, host: env.HOST };
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const shown = (path: string) =>
    relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path);
  // On a terminal, one short line per request; piped or collected, the JSON lines Lambda writes.
  process.env.LOG_FORMAT ??= process.stdout.isTTY ? 'text' : 'json';

  const stateDir = stateDirOf(env);
  const s3Dir = s3DirOf(stateDir);
  const s3 = env.S3_ENDPOINT
    ? undefined
    : await startEmbeddedS3([env.JOBS_BUCKET], { secretAccessKey: env.S3_SECRET, directory: s3Dir });
  if (s3) {
    process.env.S3_ENDPOINT = s3.endpoint;
    process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
    say(
      `Jobs and their results are kept in ${shown(s3Dir)} (they survive a restart; LOCAL_STATE_DIR moves it).`,
    );
  }
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.JOBS_BUCKET = env.JOBS_BUCKET;
  if (env.WEBHOOK_SECRET) process.env.WEBHOOK_SECRET = env.WEBHOOK_SECRET;
  else {
    // Local, so shown: a webhook receiver needs it to check X-Signature (npm run samples reads the file).
    const { secret, file } = await localWebhookSecret(stateDir);
    process.env.WEBHOOK_SECRET = secret;
    say(
      `WEBHOOK_SECRET=${secret} (generated for this machine, kept in ${shown(file)}; set WEBHOOK_SECRET to choose your own).`,
    );
  }

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
  if (s3) {
    // Jobs the last gateway left queued or running: their runs ended with it, so they are failed.
    const { failStoppedJobs } = await import('#shared/jobs/run.ts');
    const reason = 'the local gateway was stopped while it ran (npm start was ended or restarted)';
    const stopped = await failStoppedJobs(reason, startedAt, Date.now() + 60_000);
    if (stopped.ids.length > 0) {
      say(`Failed ${stopped.ids.length} job(s) the last run left unfinished: ${stopped.ids.join(', ')}.`);
    }
  }
  for (const line of await missingEngineLines()) say(line);
  const { startGateway } = await import('./gateway.ts');
  gateway = await startGateway({
    port: env.PORT,
    host: env.HOST,
    apiKeys: env.API_KEYS,
    proxySecret: env.MARKETPLACE_PROXY_SECRET,
    isolation: env.LOCAL_ISOLATION,
    workers: { maxIdleWorkers: env.LOCAL_WARM_WORKERS, idleMs: env.LOCAL_IDLE_SECONDS * 1000 },
  });
  say(`Listening on ${gateway.url} (S3 at ${process.env.S3_ENDPOINT})`);

  // Workers are ended at once (a spinning one would never finish); a second signal does not wait.
  const running = gateway;
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => process.exit(0), 2000).unref();
    void Promise.allSettled([running.close(), lambdaApi.close(), s3?.close()]).then(() => process.exit(0));
  };
  stopOnSignals(stop);
}
