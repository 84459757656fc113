import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Caller } from '#shared/auth/authorize.ts';
import { config } from '#shared/config.ts';
import { ApiError, isApiError } from '#shared/errors.ts';
import type { FileResult } from '#shared/http/respond.ts';
import { assertMayUse } from '#shared/jobs/accept.ts';
import { assertDestinationUrl } from '#shared/jobs/destination.ts';
import type { TierNeeds } from '#shared/routes/types.ts';
import { assertHttpUrl } from '#shared/source/address.ts';
import { DEADLINE_MARGIN_MS } from '#shared/source/download.ts';
import { openPinnedRequest } from '#shared/source/pinned-request.ts';
import { stage } from '#shared/stages.ts';

/** The answer to a request with `outputUrl`, and what a job with one records. */
export interface OutputSent {
  /** The destination without its query, so that a presigned URL's signature is not repeated. */
  outputUrl: string;
  sizeBytes: number;
  contentType: string;
}

export interface ExportOptions {
  /** Time for the whole exchange, connect to the destination's answer; default SOURCE_TIMEOUT_MS. */
  timeoutMs?: number;
  /** When the request must have answered (epoch ms); the exchange gives up a margin before it. */
  deadline?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Lets loopback and private addresses through; default SOURCE_ALLOW_PRIVATE. */
  allowPrivate?: boolean;
}

/** Before any work: exports are for the route's paid tiers, to a destination checked like a source. */
export async function assertMayExport(outputUrl: string, caller: Caller, needs: TierNeeds): Promise<void> {
  assertMayUse(caller, needs, 'Exports to outputUrl');
  await assertDestinationUrl(outputUrl, 'outputUrl');
}

const failed = (message: string, cause?: unknown) => new ApiError('output_upload_failed', message, { cause });

function checkAnswer(response: IncomingMessage, host: string): void {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return;
  const reason = STATUS_CODES[status];
  const quoted = `HTTP ${status}${reason ? ` ${reason}` : ''}`;
  if (status >= 300 && status < 400) {
    throw failed(
      `${host} answered the upload of the result with a redirect (${quoted}); redirects are not followed, give the final URL.`,
    );
  }
  throw failed(
    `${host} refused the result with ${quoted}; check that outputUrl is a valid presigned PUT URL that has not expired.`,
  );
}

/**
 * Sends a result file to the caller's `outputUrl` with one PUT, streamed from the workspace with
 * its Content-Type and Content-Length, under the source rules: the host resolved once and every
 * address checked (private ones only where allowed), the connection pinned to it, no redirects
 * followed, all within one time limit. Any 2xx answer is success; every other outcome is 502
 * `output_upload_failed`, quoting the status the destination gave.
 */
export function sendToOutputUrl(
  file: FileResult,
  rawUrl: string,
  options: ExportOptions = {},
): Promise<OutputSent> {
  return stage('upload', () => putResult(file, rawUrl, options));
}

async function putResult(file: FileResult, rawUrl: string, options: ExportOptions): Promise<OutputSent> {
  const url = assertHttpUrl(rawUrl, 'outputUrl');
  const { size } = await stat(file.path);
  const configured = options.timeoutMs ?? config.SOURCE_TIMEOUT_MS;
  const left = (options.deadline ?? Number.POSITIVE_INFINITY) - DEADLINE_MARGIN_MS - Date.now();
  const ms = Math.max(0, Math.min(configured, left));
  const timeUp = new AbortController();
  const timer = setTimeout(() => {
    timeUp.abort(failed(`${url.host} did not take the result within ${Number((ms / 1000).toFixed(3))} s.`));
  }, ms);
  const signal = options.signal ? AbortSignal.any([timeUp.signal, options.signal]) : timeUp.signal;
  let response: IncomingMessage | undefined;
  try {
    response = await openPinnedRequest(url, {
      method: 'PUT',
      headers: {
        'content-type': file.contentType,
        'content-length': String(size),
        'user-agent': 'file-conversion-api',
      },
      body: createReadStream(file.path),
      allowPrivate: options.allowPrivate ?? config.SOURCE_ALLOW_PRIVATE,
      signal,
    });
    checkAnswer(response, url.host);
    response.resume();
    return { outputUrl: `${url.origin}${url.pathname}`, sizeBytes: size, contentType: file.contentType };
  } catch (error) {
    if (isApiError(error) && error.code === 'source_unreachable') {
      throw failed(`The result could not be sent to outputUrl: ${error.message}`, error);
    }
    if (isApiError(error)) throw error;
    throw failed(`The result could not be sent to ${url.host}.`, error);
  } finally {
    clearTimeout(timer);
    response?.destroy();
  }
}
