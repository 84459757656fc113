import type { Caller } from '#shared/auth/authorize.ts';
import { config } from '#shared/config.ts';
import { toPublicError } from '#shared/http/errors.ts';
import type { FileResult } from '#shared/http/respond.ts';
import type { CallInput } from '#shared/http/stack.ts';
import { type JobRecord, publicView } from '#shared/jobs/record.ts';
import { loadJob, resultUrl, saveJob, saveResult } from '#shared/jobs/store.ts';
import { deliverWebhook } from '#shared/jobs/webhook.ts';
import { webhookSecret } from '#shared/jobs/webhook-secret.ts';
import { log } from '#shared/log.ts';
import { tiers } from '#shared/tiers.ts';
import { Workspace } from '#shared/workspace.ts';

type FileWork = (input: CallInput<never>) => Promise<FileResult> | FileResult;

/** Publishes progress to the job record at most once a second, one write at a time. */
function progressPublisher(record: JobRecord) {
  let chain = Promise.resolve();
  let lastSaved = 0;
  return {
    report(percent: number) {
      const value = Math.max(0, Math.min(99, Math.round(percent)));
      if (value <= record.progress || Date.now() - lastSaved < 1000) return;
      record.progress = value;
      lastSaved = Date.now();
      const snapshot = { ...record };
      chain = chain.then(() => saveJob(snapshot)).catch(() => {});
    },
    settled: () => chain,
  };
}

/**
 * Runs a queued job with the route's own work function, stores the result, and tells the
 * callback. A job already started (a retried invocation) is left alone.
 */
export async function runJob(jobId: string, work: FileWork, signal: AbortSignal): Promise<void> {
  const record = await loadJob(jobId);
  if (record?.status !== 'queued') return;
  // Before any work: a job whose webhook could not be signed stays queued, and Lambda's retry of
  // this asynchronous invocation runs it again.
  const secret = await webhookSecret();
  record.status = 'running';
  await saveJob(record);

  const caller: Caller = {
    tier: record.tier,
    callerId: record.owner,
    requestsPerMinute: record.requestsPerMinute,
    keyed: true,
  };
  const workspace = new Workspace();
  const progress = progressPublisher(record);
  try {
    const file = await work({
      body: record.request as never,
      caller,
      limits: { ...tiers[record.tier], requestsPerMinute: record.requestsPerMinute },
      requestId: jobId,
      workspace,
      signal,
      params: {},
      onProgress: progress.report,
    });
    record.result = await saveResult(jobId, file);
    record.status = 'succeeded';
    record.progress = 100;
  } catch (error) {
    const publicError = toPublicError(error, jobId);
    if (publicError.statusCode >= 500) {
      log('error', 'job failed', {
        jobId,
        route: record.route,
        cause: error instanceof Error ? error.stack : String(error),
      });
    }
    record.status = 'failed';
    record.error = publicError.toJSON();
  } finally {
    await progress.settled();
    await workspace.dispose();
  }
  record.finishedAt = new Date().toISOString();
  await saveJob(record);

  const view = publicView(record, await resultUrl(record));
  record.webhook = await deliverWebhook(record.callbackUrl, view, {
    secret,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS,
    allowPrivate: config.SOURCE_ALLOW_PRIVATE,
  });
  await saveJob(record);
  log('info', 'job finished', { jobId, route: record.route, status: record.status, webhook: record.webhook });
}
