import { decodeJwt, decodeProtectedHeader, errors } from 'jose';
import { ApiError } from '#shared/errors.ts';

export interface DecodedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

const base64urlPart = /^[A-Za-z0-9_-]*$/;

/**
 * Reads a JWT's header and claims WITHOUT checking its signature. A token that is not a JWS
 * compact serialisation with a JSON object header and a JSON object claims set is refused.
 */
export function decodeToken(token: string): DecodedJwt {
  const parts = token.split('.');
  if (parts.length === 5) {
    throw new ApiError(
      'invalid_input',
      'token is an encrypted JWT (JWE); only signed JWTs (JWS) are supported.',
    );
  }
  if (parts.length !== 3 || !parts.every((part) => base64urlPart.test(part)) || !parts[0] || !parts[1]) {
    throw new ApiError(
      'invalid_input',
      'token is not a JWT: expected three base64url parts separated by dots.',
    );
  }
  try {
    return { header: { ...decodeProtectedHeader(token) }, payload: { ...decodeJwt(token) } };
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof TypeError) {
      throw new ApiError('invalid_input', `token is not a valid JWT: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
