import { createPrivateKey, createPublicKey, type JsonWebKeyInput, type KeyObject } from 'node:crypto';
import { type JWTPayload, SignJWT } from 'jose';
import { describe, secretKey } from '#shared/crypto/jwt-keys.ts';
import type { JwsAlgorithm } from '#shared/crypto/schemas.ts';
import { ApiError } from '#shared/errors.ts';

export interface SignJwtInput {
  payload: Record<string, unknown>;
  secret?: string | undefined;
  privateKey?: string | Record<string, unknown> | undefined;
  algorithm?: JwsAlgorithm | undefined;
  expiresIn?: number | undefined;
  notBefore?: number | undefined;
  issuer?: string | undefined;
  audience?: string | string[] | undefined;
  subject?: string | undefined;
  keyId?: string | undefined;
  /** The clock for iat, exp and nbf; now by default. */
  now?: Date;
}

/**
 * A signed JWT (JWS compact serialisation) with `iat` set, and `exp`/`nbf` that many seconds after
 * it. The key decides which algorithms it may sign with, as in /jwt-verify: HS* with a secret; with
 * a private key RS* or PS* (RSA ≥ 2048 bits), the ES* of its curve, or EdDSA; the default is HS256 for a
 * secret and the key's own algorithm (RS256, ES256/384/512, EdDSA) for a private key.
 */
export async function signJwt(input: SignJwtInput): Promise<{ token: string }> {
  const signing =
    input.secret !== undefined ? secretKey(input.secret) : privateSigningKey(input.privateKey ?? '');
  const algorithm = input.algorithm ?? signing.fits[0]!;
  if (!signing.fits.includes(algorithm)) {
    throw new ApiError(
      'invalid_input',
      `algorithm: ${algorithm} cannot be signed with ${signing.kind} (it fits ${signing.fits.join(', ')}).`,
    );
  }
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const jwt = new SignJWT(input.payload as JWTPayload)
    .setProtectedHeader({ alg: algorithm, typ: 'JWT', ...(input.keyId ? { kid: input.keyId } : {}) })
    .setIssuedAt(iat);
  if (input.expiresIn !== undefined) jwt.setExpirationTime(iat + input.expiresIn);
  if (input.notBefore !== undefined) jwt.setNotBefore(iat + input.notBefore);
  if (input.issuer !== undefined) jwt.setIssuer(input.issuer);
  if (input.audience !== undefined) jwt.setAudience(input.audience);
  if (input.subject !== undefined) jwt.setSubject(input.subject);
  return { token: await jwt.sign(signing.key) };
}

function privateSigningKey(input: string | Record<string, unknown>) {
  let key: KeyObject;
  try {
    key =
      typeof input === 'string' && !input.trim().startsWith('{')
        ? createPrivateKey(input)
        : createPrivateKey({
            key: typeof input === 'string' ? JSON.parse(input) : input,
            format: 'jwk',
          } as JsonWebKeyInput);
  } catch (error) {
    throw new ApiError('invalid_input', 'privateKey is not a readable PEM private key or private JWK.', {
      cause: error,
    });
  }
  if (key.type !== 'private') throw new ApiError('invalid_input', 'privateKey must be a private key.');
  const described = describe(createPublicKey(key), 'privateKey');
  return { ...described, key, kind: described.kind.replace('public', 'private') };
}
