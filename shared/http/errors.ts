/**
 * The one error taxonomy of the API. Every code of the contract maps to exactly one status here;
 * anything thrown that is not an HttpError becomes a generic 500 (see toErrorResponse).
 */
export const errorStatus = {
  invalid_json: 400,
  validation_failed: 400,
  invalid_input: 400,
  source_invalid_url: 400,
  source_redirect: 400,
  source_bad_status: 400,
  source_blocked_address: 400,
  source_unreachable: 400,
  unsupported_input_format: 400,
  unsupported_output_format: 400,
  invalid_source_file: 400,
  encrypted_pdf: 400,
  invalid_range: 400,
  no_audio_stream: 400,
  no_video_stream: 400,
  decrypt_failed: 400,
  invalid_api_key: 401,
  missing_api_key: 401,
  invalid_proxy_secret: 403,
  insufficient_permissions: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  source_too_large: 413,
  media_too_long: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  internal_error: 500,
  source_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorBody {
  error: ErrorCode;
  message: string;
}

export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, { cause: options?.cause });
    this.name = 'HttpError';
    this.code = code;
    this.statusCode = errorStatus[code];
    this.headers = options?.headers ?? {};
  }

  toJSON(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}

export const isHttpError = (error: unknown): error is HttpError => error instanceof HttpError;

/** What a client may see of any error: HttpErrors as they are, everything else as a bare 500. */
export function toPublicError(error: unknown, requestId: string): HttpError {
  if (isHttpError(error)) return error;
  return new HttpError(
    'internal_error',
    `Unexpected error; quote request id ${requestId} when reporting it.`,
    {
      cause: error,
    },
  );
}
