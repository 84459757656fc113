import type { ApiError, ErrorCode } from '#shared/errors.ts';

/** The HTTP status of every error code of the contract: each code has exactly one. */
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
  invalid_password: 400,
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
  engine_unavailable: 503,
  source_timeout: 504,
  render_timeout: 504,
  idempotency_key_reused: 422,
  output_upload_failed: 502,
} as const satisfies Record<ErrorCode, number>;

/** The status an error is answered with. */
export const statusOf = (error: ApiError): number => errorStatus[error.code];
