import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { InvocationEnded } from './worker-process.ts';

/**
 * What API Gateway answers when the function gives none: 504 when the integration times out, 502
 * when the function crashed or ran out of memory. The stack's DEFAULT_5XX gateway response
 * (infra/stack/gateway-responses.ts) gives both the contract's body with `internal_error` and the
 * request id, so the local gateway does the same, with the status API Gateway gives. Undefined: nobody is left to answer (the
 * caller left), or the answer had begun and is cut off instead.
 */
export function answerForEndedInvocation(
  error: unknown,
  context: { requestId: string; functionName: string },
): { error: ApiError; status: 502 | 504 } | undefined {
  if (!(error instanceof InvocationEnded)) return undefined;
  if (error.ending !== 'aborted') {
    log('error', error.ending === 'timeout' ? 'function timed out' : 'function ended without answering', {
      ...context,
      ending: error.ending,
      detail: error.message,
    });
  }
  if (error.ending === 'aborted' || error.headSent) return undefined;
  const answer = new ApiError(
    'internal_error',
    `Unexpected error; quote request id ${context.requestId} when reporting it.`,
  );
  return { error: answer, status: error.ending === 'timeout' ? 504 : 502 };
}
