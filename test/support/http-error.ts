import { ApiError } from '#shared/errors.ts';

/** The ApiError a promise is refused with; anything else (success, another error) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

/** The code of the ApiError `run` throws or is refused with, "accepted" when it succeeds. */
export async function codeOf(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    return error instanceof ApiError ? error.code : `not an ApiError: ${String(error)}`;
  }
  return 'accepted';
}
