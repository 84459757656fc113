import { parseOptions as argon2Options, verify as argon2Verify } from '@node-rs/argon2';
import { verify as bcryptVerify } from '@node-rs/bcrypt';
import { scryptVerify } from '#shared/crypto/scrypt-phc.ts';
import { ApiError } from '#shared/errors.ts';

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
    if (bcryptCost(hash) > BCRYPT_MAX_COST) throw tooCostly('bcrypt');
    return bcryptVerify(password, hash);
  }
  if (hash.startsWith('$scrypt$')) return scryptVerify(password, hash);
  throw new ApiError(
    'invalid_input',
    'hash: not a known form; expected an argon2 PHC string ($argon2id$…), a bcrypt hash ($2b$…) or a $scrypt$ PHC string.',
  );
}

function parsed<T>(parse: () => T, form: string): T {
  try {
    return parse();
  } catch (error) {
    throw new ApiError('invalid_input', `hash: not a well-formed ${form}.`, { cause: error });
  }
}

/**
 * A bcrypt hash is its version, a two-digit cost (4-31), then 22 characters of salt and 31 of hash
 * in bcrypt's base64. The pinned binding has no parser of its own, and the form is fixed.
 */
const BCRYPT_HASH = /^\$2[abxy]\$(\d{2})\$[./A-Za-z0-9]{53}$/;

function bcryptCost(hash: string): number {
  const cost = Number(BCRYPT_HASH.exec(hash)?.[1]);
  if (!(cost >= 4 && cost <= 31)) {
    throw new ApiError('invalid_input', 'hash: not a well-formed bcrypt hash.');
  }
  return cost;
}

const tooCostly = (algorithm: string) =>
  new ApiError(
    'invalid_input',
    `hash: its ${algorithm} cost parameters are beyond what this service verifies.`,
  );
