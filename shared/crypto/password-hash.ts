import { hash as argon2Hash } from '@node-rs/argon2';
import { hash as bcryptHash } from '@node-rs/bcrypt';
import type { PasswordAlgorithm } from '#shared/crypto/schemas.ts';
import { scryptHash } from '#shared/crypto/scrypt-phc.ts';
import { ApiError } from '#shared/errors.ts';

/** OWASP's first argon2id setting: 19 MiB, 2 passes, 1 lane (tens of milliseconds). */
export const argon2Params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/** About 0.1 s per hash on one vCPU. */
export const BCRYPT_COST = 11;
/** bcrypt reads only the first 72 bytes of a password. */
export const BCRYPT_MAX_BYTES = 72;

/**
 * A password hash in its standard encoded form: an argon2id PHC string (`$argon2id$v=19$…`),
 * a bcrypt `$2b$` hash, or a `$scrypt$` PHC string. Every form carries its salt and costs.
 */
export async function hashPassword(password: string, algorithm: PasswordAlgorithm): Promise<string> {
  switch (algorithm) {
    case 'argon2id':
      // The library's default algorithm and version are argon2id and 0x13 (v=19).
      return argon2Hash(password, argon2Params);
    case 'bcrypt':
      if (Buffer.byteLength(password, 'utf8') > BCRYPT_MAX_BYTES) {
        throw new ApiError(
          'invalid_input',
          `password: bcrypt uses only the first ${BCRYPT_MAX_BYTES} bytes of a password; use argon2id or scrypt for a longer one.`,
        );
      }
      // The binding writes the $2b$ form.
      return bcryptHash(password, BCRYPT_COST);
    case 'scrypt':
      return scryptHash(password);
  }
}
