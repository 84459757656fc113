import { createPublicKey, type JsonWebKeyInput, type KeyObject } from 'node:crypto';
import type { JwsAlgorithm } from '#shared/crypto/schemas.ts';
import { ApiError } from '#shared/errors.ts';

/** A key ready for jose, with the only algorithms it may verify. */
export interface VerificationKey {
  key: KeyObject | Uint8Array;
  fits: readonly JwsAlgorithm[];
  /** "a secret", "an RSA public key", … for messages. */
  kind: string;
}

const hmacAlgorithms: readonly JwsAlgorithm[] = ['HS256', 'HS384', 'HS512'];
const rsaAlgorithms: readonly JwsAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const curveAlgorithms: Record<string, JwsAlgorithm> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};
const MIN_RSA_BITS = 2048;

/**
 * An HMAC secret. A secret that is in fact a PEM or JWK key is refused: verifying an HS token
 * with a public key's bytes as the secret is the classic algorithm-confusion attack.
 */
export function secretKey(secret: string | Uint8Array): VerificationKey {
  if (typeof secret === 'string' && looksLikeKey(secret)) {
    throw new ApiError(
      'invalid_input',
      'secret looks like a PEM or JWK key; send public keys as publicKey (HS* tokens are verified with a shared secret only).',
    );
  }
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  return { key, fits: hmacAlgorithms, kind: 'a secret' };
}

function looksLikeKey(secret: string): boolean {
  const trimmed = secret.trim();
  if (trimmed.startsWith('-----BEGIN')) return true;
  if (!trimmed.startsWith('{')) return false;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'object' && parsed !== null && ('kty' in parsed || 'keys' in parsed);
  } catch {
    return false;
  }
}

/** A public key from PEM (SPKI, PKCS#1 or an X.509 certificate) or from one public JWK. */
export function publicKey(input: string | Record<string, unknown>): VerificationKey {
  if (typeof input === 'string') {
    const trimmed = input.trim();
    if (trimmed.startsWith('-----BEGIN')) return fromPem(trimmed);
    if (trimmed.startsWith('{')) return fromJwk(parseJwk(trimmed));
    throw new ApiError('invalid_input', 'publicKey must be a PEM public key or a JWK.');
  }
  return fromJwk(input);
}

function fromPem(pem: string): VerificationKey {
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) throw privateKeyGiven();
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new ApiError('invalid_input', 'publicKey is not a readable PEM public key or certificate.', {
      cause: error,
    });
  }
  return describe(key);
}

function parseJwk(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new ApiError('invalid_input', 'publicKey is neither a PEM key nor a JSON JWK.');
}

function fromJwk(jwk: Record<string, unknown>): VerificationKey {
  if ('keys' in jwk) throw new ApiError('invalid_input', 'publicKey must be one JWK, not a JWK set.');
  if (jwk.kty === 'oct') {
    throw new ApiError(
      'invalid_input',
      'publicKey is a symmetric (oct) JWK; send its secret as secret instead.',
    );
  }
  if ('d' in jwk) throw privateKeyGiven();
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' } as JsonWebKeyInput);
  } catch (error) {
    throw new ApiError('invalid_input', 'publicKey is not a valid RSA, EC or OKP public JWK.', {
      cause: error,
    });
  }
  const described = describe(key);
  // A JWK's "alg" (RFC 7517 §4.4) names the one algorithm the key is meant for.
  if (jwk.alg === undefined) return described;
  if (!described.fits.includes(jwk.alg as JwsAlgorithm)) {
    throw new ApiError('invalid_input', `publicKey's "alg" does not fit ${described.kind}.`);
  }
  return { ...described, fits: [jwk.alg as JwsAlgorithm] };
}

/** What a public key may verify; `field` names the request field in messages. */
export function describe(key: KeyObject, field = 'publicKey'): VerificationKey {
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss': {
      const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
      if (bits < MIN_RSA_BITS) {
        throw new ApiError(
          'invalid_input',
          `${field} is an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are required.`,
        );
      }
      const fits =
        key.asymmetricKeyType === 'rsa' ? rsaAlgorithms : rsaAlgorithms.filter((alg) => alg.startsWith('PS'));
      return { key, fits, kind: 'an RSA public key' };
    }
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
      const alg = curveAlgorithms[curve];
      if (!alg)
        throw new ApiError('invalid_input', `${field} is on an EC curve other than P-256, P-384 or P-521.`);
      return {
        key,
        fits: [alg],
        kind: `an EC ${alg === 'ES256' ? 'P-256' : alg === 'ES384' ? 'P-384' : 'P-521'} public key`,
      };
    }
    case 'ed25519':
      return { key, fits: ['EdDSA', 'Ed25519'], kind: 'an Ed25519 public key' };
    default:
      throw new ApiError(
        'invalid_input',
        `${field} is of an unsupported type; use RSA, EC (P-256/384/521) or Ed25519.`,
      );
  }
}

const privateKeyGiven = () =>
  new ApiError('invalid_input', 'publicKey holds a private key; send only the public key.');
