import { HttpError } from '#shared/http/errors.ts';

/** The HttpError a promise is refused with; anything else (success, another error) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return error;
}
