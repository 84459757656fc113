import type { Caller } from '#shared/auth/authorize.ts';
import { config } from '#shared/config.ts';
import { ApiError, toPublicError } from '#shared/errors.ts';
import { errorStatus, statusOf } from '#shared/http/errors.ts';
import type { FileResult } from '#shared/http/respond.ts';
import type { CallInput } from '#shared/http/stack.ts';
import { sendToOutputUrl } from '#shared/jobs/export.ts';
import {
  failIfAbandoned,
  HEARTBEAT_MS,
  isAbandoned,
  isExpired,
  type JobRecord,
  publicView,
} from '#shared/jobs/record.ts';
import { listJobIds, loadJob, resultUrl, saveJob, saveResult } from '#shared/jobs/store.ts';
import { deliverWebhook } from '#shared/jobs/webhook.ts';
import { webhookSecret } from '#shared/jobs/webhook-secret.ts';
import { log } from '#shared/log.ts';
import { jobMetrics } from '#shared/metrics.ts';
import { measureStages, type StageTimes, stage, stageFields } from '#shared/stages.ts';
import { tiers } from '#shared/tiers.ts';
import { Workspace } from '#shared/workspace.ts';

type FileWork = (input: CallInput<never>) => Promise<FileResult> | FileResult;

/**
 * Stores the running job's record, one write at a time: progress at most once a second, and a
 * heartbeat every `HEARTBEAT_MS` however long a step takes, so that a reader can tell a live
 * worker from one Lambda has stopped.
 */
function runningRecord(record: JobRecord) {
  let chain = Promise.resolve();
  let lastSaved = 0;
  const save = () => {
    record.heartbeatAt = new Date().toISOString();
    lastSaved = Date.now();
    const snapshot = { ...record };
    chain = chain.then(() => saveJob(snapshot)).catch(() => {});
  };
  const heartbeat = setInterval(save, HEARTBEAT_MS);
  return {
    report(percent: number) {
      const value = Math.max(0, Math.min(99, Math.round(percent)));
      if (value <= record.progress || Date.now() - lastSaved < 1000) return;
      record.progress = value;
      save();
    },
    /** Stops the heartbeat; settles when the last write has been made. */
    stop() {
      clearInterval(heartbeat);
      return chain;
    },
  };
}

/**
 * How the worker's invocation is shared out (`endsAt` is when Lambda stops it). The work stops
 * `AFTER_WORK_MS` before the end: room to store the result and the record and to make at least one
 * webhook attempt; the webhook's retries use what is left, up to `LAST_WRITE_MS` before the end,
 * kept for recording how the delivery went.
 */
const AFTER_WORK_MS = 20_000;
const LAST_WRITE_MS = 3_000;

const durationText = (ms: number) =>
  ms >= 120_000 ? `${Number((ms / 60_000).toFixed(1))} min` : `${Math.round(ms / 1000)} s`;

/**
 * A job that used up its time answers as a conversion that does not finish in time (413
 * media_too_long): the remedy is the same, less work in one request, and no tier lifts it.
 */
function outOfTime(budgetMs: number, cause: unknown): ApiError {
  return new ApiError(
    'media_too_long',
    `The job did not finish within ${durationText(budgetMs)}, the processing time of one job on every tier; send less work in one job, such as a shorter part of the media (start, duration), a smaller size or fewer pages.`,
    { cause },
  );
}

/** Posts the finished job to its callback within the invocation's time, and records the outcome. */
async function notify(
  record: JobRecord,
  secret: string,
  endsAt: number,
  stages: StageTimes = {},
): Promise<void> {
  const view = publicView(record, await resultUrl(record));
  record.webhook = await deliverWebhook(record.callbackUrl, view, {
    secret,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS,
    allowPrivate: config.SOURCE_ALLOW_PRIVATE,
    deadline: endsAt - LAST_WRITE_MS,
  });
  await saveJob(record);
  log('info', 'job finished', {
    jobId: record.jobId,
    route: record.route,
    status: record.status,
    webhook: record.webhook,
    ...stageFields(stages),
    // The job's metrics ride on this line (embedded metric format), like a request's.
    ...jobMetrics({
      route: record.route,
      status: record.status === 'succeeded' ? 'succeeded' : 'failed',
      errorStatus: record.error ? errorStatus[record.error.error] : undefined,
      webhookDelivered: record.webhook.delivered,
    }),
  });
}

/**
 * Runs a queued job with the route's own work function, stores the result, and tells the
 * callback; `endsAt` is when Lambda stops this invocation (epoch ms). A job whose worker is gone
 * (its heartbeat is stale) is recorded as failed and the callback told; a job still running with a
 * fresh heartbeat makes this invocation fail, so that Lambda retries it later.
 */
export async function runJob(jobId: string, work: FileWork, endsAt: number): Promise<void> {
  const record = await loadJob(jobId);
  if (!record) return;
  if (isAbandoned(record)) {
    const failed = failIfAbandoned(record);
    log('error', 'job abandoned by its worker', { jobId, route: record.route });
    await saveJob(failed);
    await notify(failed, await webhookSecret(), endsAt);
    return;
  }
  if (record.status === 'running') {
    // Lambda retries an invocation only after it failed, so this is a retry after a crash (or, rarely,
    // a duplicate delivery). Failing it makes Lambda try again later; by the last retry, three
    // minutes after a crash, a dead worker's heartbeat is stale and the job is recorded above.
    throw new Error(`job ${jobId} is running with a fresh heartbeat; left to its worker for now`);
  }
  if (record.status !== 'queued') return;
  // Before any work: a job whose webhook could not be signed stays queued, and Lambda's retry of
  // this asynchronous invocation runs it again.
  const secret = await webhookSecret();
  record.status = 'running';
  record.heartbeatAt = new Date().toISOString();
  await saveJob(record);

  const caller: Caller = {
    tier: record.tier,
    callerId: record.owner,
    requestsPerMinute: record.requestsPerMinute,
    keyed: true,
  };
  const budgetMs = Math.max(1000, endsAt - AFTER_WORK_MS - Date.now());
  const budget = AbortSignal.timeout(budgetMs);
  const workspace = new Workspace();
  const running = runningRecord(record);
  const stages: StageTimes = {};
  try {
    const input = {
      body: record.request as never,
      caller,
      limits: { ...tiers[record.tier], requestsPerMinute: record.requestsPerMinute },
      requestId: jobId,
      workspace,
      signal: budget,
      params: {},
      onProgress: running.report,
    };
    await measureStages(stages, async () => {
      const file = await stage('engine', () => work(input));
      if (record.outputUrl === undefined)
        record.result = await stage('upload', () => saveResult(jobId, file));
      else record.output = await sendToOutputUrl(file, record.outputUrl, { signal: budget });
    });
    record.status = 'succeeded';
    record.progress = 100;
  } catch (error) {
    // Whatever the work threw once its time was up, running out of time is why it failed.
    const publicError = budget.aborted ? outOfTime(budgetMs, error) : toPublicError(error, jobId);
    if (statusOf(publicError) >= 500) {
      log('error', 'job failed', {
        jobId,
        route: record.route,
        cause: error instanceof Error ? error.stack : String(error),
      });
    }
    record.status = 'failed';
    record.error = publicError.toJSON();
  } finally {
    await running.stop();
    await workspace.dispose();
  }
  record.finishedAt = new Date().toISOString();
  await saveJob(record);
  await notify(record, secret, endsAt, stages);
}

/**
 * Jobs left queued or running when the process that ran them stopped (the local gateway, whose
 * asynchronous invocations live in its memory): each job created before `startedAt` is recorded as
 * failed with `reason`, so that none is forgotten. Answers their ids at once, and `notified`, which
 * settles when each callback has been told (within `endsAt`).
 */
export async function failStoppedJobs(
  reason: string,
  startedAt: number,
  endsAt: number,
): Promise<{ ids: string[]; notified: Promise<void> }> {
  const failed: JobRecord[] = [];
  for (const jobId of await listJobIds()) {
    const record = await loadJob(jobId);
    if (!record || isExpired(record) || Date.parse(record.createdAt) >= startedAt) continue;
    if (record.status !== 'queued' && record.status !== 'running') continue;
    const stopped: JobRecord = {
      ...record,
      status: 'failed',
      finishedAt: new Date().toISOString(),
      error: {
        error: 'internal_error',
        message: `The job stopped before it finished: ${reason}. Send it again; quote job id ${jobId} when reporting it.`,
      },
    };
    await saveJob(stopped);
    log('error', 'job stopped with its process', { jobId, route: record.route });
    failed.push(stopped);
  }
  const notified =
    failed.length === 0
      ? Promise.resolve()
      : webhookSecret().then(async (secret) => {
          await Promise.all(failed.map((record) => notify(record, secret, endsAt)));
        });
  return { ids: failed.map((record) => record.jobId), notified: notified.catch(() => {}) };
}
