import { parseOptions as argon2Options, verify as argon2Verify } from '@node-rs/argon2';
import { parseOptions as bcryptOptions, verify as bcryptVerify } from '@node-rs/bcrypt';
import { scryptVerify } from '#shared/crypto/scrypt-phc.ts';
import { HttpError } from '#shared/http/errors.ts';

// Hashes made elsewhere are verified up to these costs, so one call stays well under a second.
const ARGON2_MAX_MEMORY_KIB = 65_536;
const ARGON2_MAX_WORK_KIB = 4 * 65_536;
const ARGON2_MAX_PARALLELISM = 8;
const BCRYPT_MAX_COST = 13;

/** Checks a password against an argon2, bcrypt or scrypt hash; the algorithm is read from the hash. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  if (/^\$argon2(id|i|d)\$/.test(hash)) {
    const options = parsed(() => argon2Options(hash), 'argon2 PHC string');
    if (
      options.memoryCost > ARGON2_MAX_MEMORY_KIB ||
      options.memoryCost * options.timeCost > ARGON2_MAX_WORK_KIB ||
      options.parallelism > ARGON2_MAX_PARALLELISM
    ) {
      throw tooCostly('argon2');
    }
    return argon2Verify(hash, password);
  }
  if (/^\$2[abxy]\$/.test(hash)) {
    const options = parsed(() => bcryptOptions(hash), 'bcrypt hash');
    if (options.cost > BCRYPT_MAX_COST) throw tooCostly('bcrypt');
    return bcryptVerify(password, hash);
  }
  if (hash.startsWith('$scrypt$')) return scryptVerify(password, hash);
  throw new HttpError(
    'invalid_input',
    'hash: not a known form; expected an argon2 PHC string ($argon2id$…), a bcrypt hash ($2b$…) or a $scrypt$ PHC string.',
  );
}

function parsed<T>(parse: () => T, form: string): T {
  try {
    return parse();
  } catch (error) {
    throw new HttpError('invalid_input', `hash: not a well-formed ${form}.`, { cause: error });
  }
}

const tooCostly = (algorithm: string) =>
  new HttpError(
    'invalid_input',
    `hash: its ${algorithm} cost parameters are beyond what this service verifies.`,
  );
