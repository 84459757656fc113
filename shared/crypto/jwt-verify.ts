import { errors, type JWTPayload, jwtVerify } from 'jose';
import { decodeToken } from '#shared/crypto/jwt-decode.ts';
import { publicKey, secretKey, type VerificationKey } from '#shared/crypto/jwt-keys.ts';
import type { JwsAlgorithm, JwtRejection } from '#shared/crypto/schemas.ts';
import { ApiError } from '#shared/errors.ts';

export interface VerifyJwtInput {
  token: string;
  secret?: string | Uint8Array | undefined;
  publicKey?: string | Record<string, unknown> | undefined;
  algorithms?: readonly JwsAlgorithm[] | undefined;
  /** The clock to check exp and nbf against; now by default. */
  now?: Date;
}

export type JwtVerdict = { valid: true; payload: JWTPayload } | { valid: false; reason: JwtRejection };

/**
 * Verifies a signed JWT. A request that cannot be judged (a malformed token, an unusable key,
 * `algorithms` that do not fit the key) throws a 400; a token that is judged and fails (wrong
 * signature, expired, not yet valid, an algorithm the key may not verify, `none` included) comes
 * back as `{valid: false, reason}`.
 */
export async function verifyJwt(input: VerifyJwtInput): Promise<JwtVerdict> {
  const { header } = decodeToken(input.token);
  const key = input.secret !== undefined ? secretKey(input.secret) : publicKey(input.publicKey ?? '');
  const allowed = allowedAlgorithms(key, input.algorithms);
  // The key, never the token's header, decides the algorithm family: no `none`, no HS-with-a-public-key.
  if (typeof header.alg !== 'string' || !(allowed as readonly string[]).includes(header.alg)) {
    return { valid: false, reason: 'algorithm_not_allowed' };
  }
  try {
    const { payload } = await jwtVerify(input.token, key.key, {
      algorithms: [...allowed],
      ...(input.now ? { currentDate: input.now } : {}),
    });
    return { valid: true, payload };
  } catch (error) {
    return { valid: false, reason: rejectionOf(error) };
  }
}

function allowedAlgorithms(key: VerificationKey, requested: readonly JwsAlgorithm[] | undefined) {
  if (!requested) return key.fits;
  const misfits = requested.filter((alg) => !key.fits.includes(alg));
  if (misfits.length > 0) {
    throw new ApiError(
      'invalid_input',
      `algorithms: ${misfits.join(', ')} cannot be verified with ${key.kind} (it fits ${key.fits.join(', ')}).`,
    );
  }
  return requested;
}

function rejectionOf(error: unknown): JwtRejection {
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature_invalid';
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.claim === 'nbf' && error.reason === 'check_failed' ? 'not_yet_valid' : 'claim_invalid';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'algorithm_not_allowed';
  if (error instanceof errors.JOSEError) return 'token_invalid';
  throw error;
}
