import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { base64nopad } from '@scure/base';
import { ApiError } from '#shared/errors.ts';

/**
 * scrypt password hashes as PHC strings: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`, salt and
 * hash in unpadded standard base64 (the PHC string format's B64).
 */
export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  ln: number;
  r: number;
  p: number;
}

/** OWASP's scrypt setting for 32 MiB of memory (N = 2^15, r = 8, p = 3): about 0.25 s. */
export const scryptHashParams: ScryptParams = { ln: 15, r: 8, p: 3 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;

// Hashes made elsewhere are verified up to these costs: 64 MiB of memory, about 3x our own time.
const MAX_MEMORY_BYTES = 64 * 1024 * 1024;
const MAX_WORK = 2 ** 21;

export function scryptKey(
  secret: string | Uint8Array,
  salt: Uint8Array,
  length: number,
  params: ScryptParams,
) {
  const options: ScryptOptions = {
    N: 2 ** params.ln,
    r: params.r,
    p: params.p,
    maxmem: 2 * 128 * params.r * 2 ** params.ln + 1024 * 1024,
  };
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function scryptHash(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptKey(password, salt, HASH_BYTES, scryptHashParams);
  const { ln, r, p } = scryptHashParams;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${base64nopad.encode(salt)}$${base64nopad.encode(hash)}`;
}

export async function scryptVerify(password: string, encoded: string): Promise<boolean> {
  const { params, salt, hash } = parseScryptPhc(encoded);
  const candidate = await scryptKey(password, salt, hash.length, params);
  return timingSafeEqual(candidate, hash);
}

const phcPattern = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

export function parseScryptPhc(encoded: string): {
  params: ScryptParams;
  salt: Uint8Array;
  hash: Uint8Array;
} {
  const match = phcPattern.exec(encoded);
  if (!match) throw malformed();
  const [, ln = '', r = '', p = '', salt = '', hash = ''] = match;
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  let saltBytes: Uint8Array;
  let hashBytes: Uint8Array;
  try {
    saltBytes = base64nopad.decode(salt);
    hashBytes = base64nopad.decode(hash);
  } catch (error) {
    throw malformed(error);
  }
  if (params.ln < 1 || params.r < 1 || params.p < 1) throw malformed();
  if (saltBytes.length < 8 || saltBytes.length > 64 || hashBytes.length < 16 || hashBytes.length > 64)
    throw malformed();
  const memory = 128 * params.r * 2 ** params.ln;
  if (memory > MAX_MEMORY_BYTES || 2 ** params.ln * params.r * params.p > MAX_WORK) {
    throw new ApiError(
      'invalid_input',
      'hash: its scrypt cost parameters are beyond what this service verifies.',
    );
  }
  return { params, salt: saltBytes, hash: hashBytes };
}

const malformed = (cause?: unknown) =>
  new ApiError('invalid_input', 'hash: not a well-formed $scrypt$ln=…,r=…,p=…$salt$hash string.', { cause });
