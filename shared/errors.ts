/**
 * The one error taxonomy of the API: every failure a client may see is an ApiError with one of
 * these codes and a message written for the client. Domain code throws them and knows nothing of
 * HTTP; shared/http/errors.ts gives each code its status, in one place. Anything thrown that is
 * not an ApiError becomes a generic `internal_error` (see toPublicError).
 */
export const errorCodes = [
  'invalid_json',
  'validation_failed',
  'invalid_input',
  'source_invalid_url',
  'source_redirect',
  'source_bad_status',
  'source_blocked_address',
  'source_unreachable',
  'unsupported_input_format',
  'unsupported_output_format',
  'invalid_source_file',
  'encrypted_pdf',
  'invalid_password',
  'invalid_range',
  'no_audio_stream',
  'no_video_stream',
  'decrypt_failed',
  'invalid_api_key',
  'missing_api_key',
  'invalid_proxy_secret',
  'insufficient_permissions',
  'not_found',
  'method_not_allowed',
  'request_too_large',
  'source_too_large',
  'media_too_long',
  'unsupported_media_type',
  'rate_limit_exceeded',
  'internal_error',
  'engine_unavailable',
  'source_timeout',
  'render_timeout',
  'idempotency_key_reused',
  'output_upload_failed',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** The body of every error answer, and the `error` of a failed job. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.name = 'ApiError';
    this.code = code;
  }

  toJSON(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/** Prefixes an error with the request field it concerns, e.g. `sources.2: …`. */
export function inField(field: string, error: unknown): unknown {
  if (!isApiError(error) || error.message.startsWith(`${field}:`)) return error;
  return new ApiError(error.code, `${field}: ${error.message}`, { cause: error });
}

/** What a client may see of any error: ApiErrors as they are, everything else as a bare 500. */
export function toPublicError(error: unknown, requestId: string): ApiError {
  if (isApiError(error)) return error;
  return new ApiError(
    'internal_error',
    `Unexpected error; quote request id ${requestId} when reporting it.`,
    {
      cause: error,
    },
  );
}
