import { hash as argon2Hash } from '@node-rs/argon2';
import { base64nopad } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { argon2Params, BCRYPT_COST, hashPassword } from '#shared/crypto/password-hash.ts';
import { verifyPassword } from '#shared/crypto/password-verify.ts';
import { parseScryptPhc, scryptHashParams, scryptKey } from '#shared/crypto/scrypt-phc.ts';
import { ApiError } from '#shared/errors.ts';

const codeOf = async (run: () => Promise<unknown>) => {
  try {
    await run();
  } catch (error) {
    return error instanceof ApiError ? error.code : `not an ApiError: ${String(error)}`;
  }
  return 'accepted';
};

// The argon2 reference implementation's test vector (phc-winner-argon2 src/test.c, argon2id v=19).
const argon2Reference =
  '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';

describe('argon2id', () => {
  it('the library reproduces the reference vector from a fixed salt', async () => {
    const encoded = await argon2Hash('password', {
      memoryCost: 65_536,
      timeCost: 2,
      parallelism: 1,
      salt: new TextEncoder().encode('somesalt'),
    });
    expect(encoded).toBe(argon2Reference);
  });

  it('verifies the reference vector, and refuses a wrong password', async () => {
    expect(await verifyPassword('password', argon2Reference)).toBe(true);
    expect(await verifyPassword('passwore', argon2Reference)).toBe(false);
  });

  it('hashes as a PHC string with our costs and a fresh salt', async () => {
    const first = await hashPassword('correct horse', 'argon2id');
    const { memoryCost: m, timeCost: t, parallelism: p } = argon2Params;
    expect(first).toMatch(
      new RegExp(`^\\$argon2id\\$v=19\\$m=${m},t=${t},p=${p}\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}$`),
    );
    expect(await hashPassword('correct horse', 'argon2id')).not.toBe(first);
    expect(await verifyPassword('correct horse', first)).toBe(true);
    expect(await verifyPassword('correct horsE', first)).toBe(false);
  });
});

describe('bcrypt', () => {
  // crypt_blowfish's published test vectors ($2a$, cost 5).
  it.each([
    ['U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
    ['U*U*', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK'],
    ['U*U*U', '$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a'],
  ])('verifies %j against its known hash', async (password, hash) => {
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(`${password}!`, hash)).toBe(false);
  });

  it('hashes as $2b$ with our cost', async () => {
    const hash = await hashPassword('pässword', 'bcrypt');
    expect(hash).toMatch(new RegExp(`^\\$2b\\$${BCRYPT_COST}\\$[./A-Za-z0-9]{53}$`));
    expect(await verifyPassword('pässword', hash)).toBe(true);
    expect(await verifyPassword('passwörd', hash)).toBe(false);
  });

  it('refuses a password past 72 bytes instead of cutting it', async () => {
    expect(await codeOf(() => hashPassword('é'.repeat(37), 'bcrypt'))).toBe('invalid_input');
    expect(await codeOf(() => hashPassword('a'.repeat(72), 'bcrypt'))).toBe('accepted');
  });
});

describe('scrypt', () => {
  it('derives the RFC 7914 §12 vectors', async () => {
    const vector1 = await scryptKey('password', new TextEncoder().encode('NaCl'), 64, {
      ln: 10,
      r: 8,
      p: 16,
    });
    expect(vector1.toString('hex')).toBe(
      'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
    );
  });

  it('verifies a PHC string built from the RFC 7914 vector', async () => {
    const salt = base64nopad.encode(new TextEncoder().encode('SodiumChloride'));
    const hash = base64nopad.encode(
      Buffer.from(
        '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
        'hex',
      ),
    );
    const phc = `$scrypt$ln=14,r=8,p=1$${salt}$${hash}`;
    expect(await verifyPassword('pleaseletmein', phc)).toBe(true);
    expect(await verifyPassword('pleaseletmeout', phc)).toBe(false);
  });

  it('hashes as $scrypt$ln=…,r=…,p=…$salt$hash', async () => {
    const hash = await hashPassword('hunter2', 'scrypt');
    const { ln, r, p } = scryptHashParams;
    expect(hash).toMatch(
      new RegExp(`^\\$scrypt\\$ln=${ln},r=${r},p=${p}\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}$`),
    );
    expect(parseScryptPhc(hash).hash).toHaveLength(32);
    expect(await verifyPassword('hunter2', hash)).toBe(true);
    expect(await verifyPassword('hunter3', hash)).toBe(false);
  });
});

describe('verifyPassword refuses what it cannot judge', () => {
  it.each([
    ['$2b$10$abcdefghijklmnopqrstuv', 'hash: not a well-formed bcrypt hash.'],
    ['$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ', 'hash: not a well-formed argon2 PHC string.'],
  ])('names the form a malformed %s should have', async (hash, message) => {
    await expect(verifyPassword('password', hash)).rejects.toThrow(message);
  });

  it.each([
    ['plain text', 'password'],
    ['sha512-crypt', '$6$rounds=5000$saltsalt$abc'],
    ['a truncated argon2 string', '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ'],
    [
      'argon2 with garbage parameters',
      '$argon2id$v=19$m=x,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
    ],
    ['a truncated bcrypt hash', '$2b$10$abcdefghijklmnopqrstuv'],
    ['bcrypt with a bad cost', '$2b$99$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
    ['scrypt without p', '$scrypt$ln=14,r=8$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA'],
    ['scrypt with a bad salt', '$scrypt$ln=14,r=8,p=1$!!!$aGFzaGhhc2hoYXNoaGFzaA'],
    // Costs past the service's ceiling: a hash must not be able to tie up a function.
    [
      'argon2 with 1 GiB',
      '$argon2id$v=19$m=1048576,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
    ],
    ['bcrypt cost 20', '$2b$20$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
    ['scrypt with 1 GiB', '$scrypt$ln=20,r=8,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA'],
  ])('%s → invalid_input', async (_name, hash) => {
    expect(await codeOf(() => verifyPassword('password', hash))).toBe('invalid_input');
  });
});
