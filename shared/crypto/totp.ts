import { Secret, TOTP } from 'otpauth';
import { ApiError } from '#shared/errors.ts';

export interface TotpOptions {
  secret?: string | undefined;
  issuer?: string | undefined;
  account?: string | undefined;
  digits: 6 | 8;
  period: number;
  algorithm: 'sha1' | 'sha256' | 'sha512';
}

/** A new random secret is 20 bytes (160 bits), the length RFC 4226 recommends. */
const newSecretBytes = 20;

function totpOf(options: TotpOptions): TOTP {
  let secret: Secret;
  if (options.secret === undefined) {
    secret = new Secret({ size: newSecretBytes });
  } else {
    const base32 = options.secret.replace(/[\s=]/g, '').toUpperCase();
    if (!/^[A-Z2-7]+$/.test(base32)) {
      throw new ApiError('invalid_input', 'secret must be base32 (RFC 4648: letters A–Z and digits 2–7).');
    }
    secret = Secret.fromBase32(base32);
  }
  return new TOTP({
    secret,
    digits: options.digits,
    period: options.period,
    algorithm: options.algorithm.toUpperCase(),
    ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
    ...(options.account !== undefined ? { label: options.account } : {}),
  });
}

/** The current RFC 6238 code, the secret in base32, and an otpauth:// URL for authenticator apps. */
export function currentTotp(options: TotpOptions, now = Date.now()) {
  const totp = totpOf(options);
  const elapsed = Math.floor(now / 1000) % options.period;
  return {
    secret: totp.secret.base32,
    otpauthUrl: totp.toString(),
    code: totp.generate({ timestamp: now }),
    remainingSeconds: options.period - elapsed,
  };
}

/**
 * Whether `code` is the code of a period within `window` periods of now; `delta` says which
 * (−1: the previous one, 0: the current one, 1: the next one).
 */
export function verifyTotp(options: TotpOptions & { code: string; window: number }, now = Date.now()) {
  const delta = totpOf(options).validate({ token: options.code, timestamp: now, window: options.window });
  return delta === null ? { valid: false } : { valid: true, delta };
}
