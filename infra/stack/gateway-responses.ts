import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { ErrorCode } from '#shared/errors.ts';
import { errorStatus } from '#shared/http/errors.ts';

export interface GatewayErrorShape {
  type: apigateway.ResponseType;
  /** The contract's code; its status is the answer's status unless `keepStatus`. */
  code: ErrorCode;
  /** The DEFAULT_* families cover several statuses: keep the gateway's own. */
  keepStatus?: boolean;
  /** A JSON string literal, or a $context expression that yields one. */
  message: string;
  headers?: Record<string, string>;
}

const literal = (text: string) => JSON.stringify(text);

/** Seconds a throttled client should wait: the pro tier's bucket refills a token every 0.6 s. */
export const throttledRetryAfterSeconds = 1;

/**
 * The errors API Gateway answers by itself, shaped as the contract's `{error, message}` with the
 * contract's statuses, so that a client cannot tell the gateway's refusals from a handler's.
 */
export const gatewayErrors: readonly GatewayErrorShape[] = [
  {
    type: apigateway.ResponseType.UNAUTHORIZED,
    code: 'invalid_api_key',
    message: literal('The x-api-key is unknown or revoked.'),
  },
  {
    type: apigateway.ResponseType.INVALID_API_KEY,
    code: 'invalid_api_key',
    message: literal('The x-api-key is unknown or revoked.'),
  },
  {
    type: apigateway.ResponseType.ACCESS_DENIED,
    code: 'invalid_proxy_secret',
    message: literal('The x-marketplace-proxy-secret header is missing or wrong.'),
  },
  {
    type: apigateway.ResponseType.THROTTLED,
    code: 'rate_limit_exceeded',
    message: literal("Too many requests for this key's tier; retry after the time in Retry-After."),
    headers: { 'Retry-After': `'${throttledRetryAfterSeconds}'` },
  },
  {
    type: apigateway.ResponseType.QUOTA_EXCEEDED,
    code: 'rate_limit_exceeded',
    message: literal("This key's request quota is used up; retry after the time in Retry-After."),
    headers: { 'Retry-After': "'60'" },
  },
  {
    type: apigateway.ResponseType.REQUEST_TOO_LARGE,
    code: 'request_too_large',
    message: literal('The request body is larger than the gateway accepts.'),
  },
  {
    // API Gateway answers an unknown path or method "Missing Authentication Token"; the contract
    // answers 404 not_found.
    type: apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN,
    code: 'not_found',
    message: literal('No route matches this method and path.'),
  },
  {
    type: apigateway.ResponseType.DEFAULT_4XX,
    code: 'invalid_input',
    keepStatus: true,
    message: '$context.error.messageString',
  },
  {
    type: apigateway.ResponseType.DEFAULT_5XX,
    code: 'internal_error',
    keepStatus: true,
    message: '"Unexpected error; quote request id $context.requestId when reporting it."',
  },
];

/** Every gateway answer is CORS-readable and names its request, as the handlers' answers do. */
export const gatewayResponseHeaders: Record<string, string> = {
  'Access-Control-Allow-Origin': "'*'",
  'X-Request-Id': 'context.requestId',
  'Content-Type': "'application/json; charset=utf-8'",
};

export function addGatewayResponses(api: apigateway.RestApi): void {
  for (const shape of gatewayErrors) {
    api.addGatewayResponse(`GatewayResponse${shape.type.responseType}`, {
      type: shape.type,
      ...(shape.keepStatus ? {} : { statusCode: String(errorStatus[shape.code]) }),
      responseHeaders: { ...gatewayResponseHeaders, ...shape.headers },
      templates: { 'application/json': `{"error":"${shape.code}","message":${shape.message}}` },
    });
  }
}
