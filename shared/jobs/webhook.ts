import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPinnedRequest } from '#shared/source/pinned-request.ts';

export interface WebhookOptions {
  secret: string;
  /** Pauses before each retry; the number of entries is the number of retries. */
  retryDelaysMs: readonly number[];
  allowPrivate: boolean;
  attemptTimeoutMs?: number;
  /**
   * When the function delivering it will be stopped (epoch ms): no attempt or pause runs past it,
   * so that Lambda never cuts a delivery midway and the outcome is always recorded.
   */
  deadline?: number;
}

export interface WebhookOutcome {
  attempts: number;
  delivered: boolean;
  lastStatus?: number;
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, as receivers verify it. */
export const signBody = (body: string, secret: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** An attempt is not started with less time than this before the deadline. */
const MIN_ATTEMPT_MS = 1000;

/**
 * POSTs the job JSON to the callback URL, signed, through the same address-checked, pinned,
 * no-redirect connection as source downloads. Retries with backoff as long as the deadline allows;
 * never throws: a webhook that fails for good leaves the job readable by polling.
 */
export async function deliverWebhook(
  url: string,
  payload: unknown,
  options: WebhookOptions,
): Promise<WebhookOutcome> {
  const body = JSON.stringify(payload);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'file-conversion-api-webhook',
    'X-Signature': signBody(body, options.secret),
  };
  const timeLeft = () => (options.deadline ?? Number.POSITIVE_INFINITY) - Date.now();
  let lastStatus: number | undefined;
  let attempts = 0;
  for (let attempt = 1; attempt <= options.retryDelaysMs.length + 1; attempt += 1) {
    if (timeLeft() < MIN_ATTEMPT_MS) break;
    attempts = attempt;
    try {
      const signal = AbortSignal.timeout(Math.min(options.attemptTimeoutMs ?? 10_000, timeLeft()));
      const response = await openPinnedRequest(new URL(url), {
        method: 'POST',
        headers,
        body,
        allowPrivate: options.allowPrivate,
        signal,
      });
      lastStatus = response.statusCode;
      response.resume();
      if (lastStatus !== undefined && lastStatus >= 200 && lastStatus < 300) {
        return { attempts: attempt, delivered: true, lastStatus };
      }
    } catch {
      lastStatus = undefined;
    }
    const delay = options.retryDelaysMs[attempt - 1];
    if (delay === undefined || timeLeft() < delay + MIN_ATTEMPT_MS) break;
    await sleep(delay);
  }
  return { attempts, delivered: false, ...(lastStatus === undefined ? {} : { lastStatus }) };
}
