import { execFile, execFileSync } from 'node:child_process';
import { createPrivateKey, type JsonWebKeyInput } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '#shared/crypto/jwt-sign.ts';
import { type KeyPairInput, makeKeyPair } from '#shared/crypto/keypair.ts';
import { passwordStrength } from '#shared/crypto/password-strength.ts';
import { currentTotp, type TotpOptions, verifyTotp } from '#shared/crypto/totp.ts';
import { codeOf } from '../../support/http-error.ts';

/**
 * /jwt-sign, /keypair, /totp, /totp-verify and /password-strength against independent references:
 * PyJWT verifies every token, openssl reads every key, oathtool computes every code (and RFC 6238's
 * own vectors), and zxcvbn's published guesses for the common passwords.
 */

const run = promisify(execFile);

/** PyJWT's reading of each token with its key (a secret, or a public PEM or JWK), in one run. */
const pyjwtReader = `
import json, sys, jwt
out = []
for token, key, alg, audience in json.load(sys.stdin):
    if isinstance(key, dict):
        key = jwt.PyJWK(key, alg).key
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, key, algorithms=[alg], audience=audience, leeway=5)
    out.append({'header': header, 'claims': claims})
print(json.dumps(out))
`;
type PyJwtItem = [token: string, key: string | object, algorithm: string, audience: string | null];
const readByPyJwt = (items: PyJwtItem[]) =>
  JSON.parse(
    execFileSync('/usr/bin/python3', ['-c', pyjwtReader], { input: JSON.stringify(items), encoding: 'utf8' }),
  ) as { header: Record<string, unknown>; claims: Record<string, unknown> }[];

const keyInput = (input: Partial<KeyPairInput>): KeyPairInput => ({
  type: 'rsa',
  modulusLength: 2048,
  curve: 'P-256',
  format: 'pem',
  ...input,
});

describe('keypair, read by openssl', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keypair-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const cases: [Partial<KeyPairInput>, RegExp][] = [
    [{ type: 'rsa' }, /Private-Key: \(2048 bit/],
    [{ type: 'rsa', modulusLength: 3072 }, /Private-Key: \(3072 bit/],
    [{ type: 'ec' }, /NIST CURVE: P-256/],
    [{ type: 'ec', curve: 'P-521' }, /NIST CURVE: P-521/],
    [{ type: 'ed25519' }, /ED25519 Private-Key/],
    [{ type: 'x25519' }, /X25519 Private-Key/],
  ];

  it.each(cases)('%o: openssl reads the private key and derives the same public key', async (input, text) => {
    const pair = await makeKeyPair(keyInput(input));
    const file = join(dir, `${input.type}-${input.modulusLength ?? input.curve ?? ''}.pem`);
    await writeFile(file, pair.privateKey as string, { mode: 0o600 });
    expect(pair.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(pair.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const [described, derived] = await Promise.all([
      run('openssl', ['pkey', '-in', file, '-noout', '-text']),
      run('openssl', ['pkey', '-in', file, '-pubout']),
    ]);
    expect(described.stdout).toMatch(text);
    expect(derived.stdout).toBe(pair.publicKey);
  });

  it('writes JWK pairs whose halves belong together, and every pair is new', async () => {
    const pair = await makeKeyPair(keyInput({ type: 'ec', curve: 'P-384', format: 'jwk' }));
    expect(pair.publicKey).toMatchObject({ kty: 'EC', crv: 'P-384' });
    expect(pair.publicKey).not.toHaveProperty('d');
    const fromPrivate = createPrivateKey({ key: pair.privateKey, format: 'jwk' } as JsonWebKeyInput);
    const { d: _secret, ...publicHalf } = fromPrivate.export({ format: 'jwk' });
    expect(publicHalf).toEqual(pair.publicKey);
    const again = await makeKeyPair(keyInput({ type: 'ec', curve: 'P-384', format: 'jwk' }));
    expect(again.publicKey).not.toEqual(pair.publicKey);
  });
});

describe('jwt-sign, verified by PyJWT', () => {
  const now = new Date();

  it('signs with a secret and with each kind of private key; PyJWT reads the same claims', async () => {
    const rsa = await makeKeyPair(keyInput({ type: 'rsa' }));
    const ec = await makeKeyPair(keyInput({ type: 'ec', curve: 'P-256' }));
    const ed = await makeKeyPair(keyInput({ type: 'ed25519' }));
    const jwk = await makeKeyPair(keyInput({ type: 'ec', curve: 'P-521', format: 'jwk' }));
    const payload = { role: 'admin', name: 'Zoë 日本' };
    const claims = { issuer: 'files.example', subject: 'user-7', audience: 'api', expiresIn: 600, now };
    const signed: [Parameters<typeof signJwt>[0], string | object, string][] = [
      [
        { payload, secret: 'a shared secret of some length', ...claims },
        'a shared secret of some length',
        'HS256',
      ],
      [{ payload, secret: 's3cret', algorithm: 'HS512', ...claims }, 's3cret', 'HS512'],
      [{ payload, privateKey: rsa.privateKey as string, ...claims }, rsa.publicKey, 'RS256'],
      [
        { payload, privateKey: rsa.privateKey as string, algorithm: 'PS384', ...claims },
        rsa.publicKey,
        'PS384',
      ],
      [{ payload, privateKey: ec.privateKey as string, ...claims }, ec.publicKey, 'ES256'],
      [{ payload, privateKey: ed.privateKey as string, keyId: 'k1', ...claims }, ed.publicKey, 'EdDSA'],
      [{ payload, privateKey: jwk.privateKey as Record<string, unknown>, ...claims }, jwk.publicKey, 'ES512'],
    ];
    const tokens = await Promise.all(signed.map(([input]) => signJwt(input)));
    const read = readByPyJwt(
      tokens.map(({ token }, index) => [token, signed[index]![1], signed[index]![2], 'api']),
    );
    const iat = Math.floor(now.getTime() / 1000);
    for (const [index, { header, claims: decoded }] of read.entries()) {
      expect(header).toMatchObject({ alg: signed[index]![2], typ: 'JWT' });
      expect(decoded).toEqual({
        ...payload,
        iat,
        exp: iat + 600,
        iss: 'files.example',
        sub: 'user-7',
        aud: 'api',
      });
    }
    expect(read[5]!.header.kid).toBe('k1');
  });

  it('sets nbf, and refuses an algorithm the key cannot sign or a key that is not private', async () => {
    const { token } = await signJwt({ payload: {}, secret: 'x', notBefore: 60, now: new Date(0) });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims).toEqual({ iat: 0, nbf: 60 });
    const ec = await makeKeyPair(keyInput({ type: 'ec' }));
    expect(
      await codeOf(() => signJwt({ payload: {}, privateKey: ec.privateKey as string, algorithm: 'ES384' })),
    ).toBe('invalid_input');
    expect(await codeOf(() => signJwt({ payload: {}, secret: 'x', algorithm: 'RS256' }))).toBe(
      'invalid_input',
    );
    expect(await codeOf(() => signJwt({ payload: {}, privateKey: ec.publicKey as string }))).toBe(
      'invalid_input',
    );
    expect(await codeOf(() => signJwt({ payload: {}, privateKey: 'not a key' }))).toBe('invalid_input');
    expect(await codeOf(() => signJwt({ payload: {}, secret: ec.publicKey as string }))).toBe(
      'invalid_input',
    );
  });

  it('refuses an RSA key under 2048 bits', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    }) as string;
    expect(await codeOf(() => signJwt({ payload: {}, privateKey: weak }))).toBe('invalid_input');
  });
});

describe('totp and totp-verify, against oathtool and RFC 6238', () => {
  // RFC 6238's secrets: the ASCII digits 1234567890 repeated to 20, 32 and 64 bytes, in base32 by
  // Python's own encoder.
  const rfcSecrets = JSON.parse(
    execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import base64,json;s=b"1234567890"*7;print(json.dumps({n:base64.b32encode(s[:n]).decode() for n in (20,32,64)}))',
      ],
      { encoding: 'utf8' },
    ),
  ) as Record<'20' | '32' | '64', string>;
  const options = (secret: string, extra: Partial<TotpOptions> = {}): TotpOptions => ({
    secret,
    digits: 8,
    period: 30,
    algorithm: 'sha1',
    ...extra,
  });

  // RFC 6238 Appendix B: the three secrets (20, 32 and 64 bytes) at six times.
  const vectors: [number, string, string, string][] = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ];

  it.each(vectors)('RFC 6238 at T=%i', (time, sha1, sha256, sha512) => {
    const code = (bytes: 20 | 32 | 64, algorithm: TotpOptions['algorithm']) =>
      currentTotp(options(rfcSecrets[bytes], { algorithm }), time * 1000).code;
    expect([code(20, 'sha1'), code(32, 'sha256'), code(64, 'sha512')]).toEqual([sha1, sha256, sha512]);
  });

  it('makes the codes oathtool makes, for each digit count, period and hash', async () => {
    const made = currentTotp({ digits: 6, period: 30, algorithm: 'sha1' });
    expect(made.secret).toMatch(/^[A-Z2-7]{32}$/);
    const at = 1_700_000_123;
    for (const [digits, period, algorithm] of [
      [6, 30, 'sha1'],
      [8, 60, 'sha256'],
      [6, 15, 'sha512'],
    ] as const) {
      const ours = currentTotp({ secret: made.secret, digits, period, algorithm }, at * 1000);
      const { stdout } = await run('oathtool', [
        `--totp=${algorithm}`,
        '-d',
        String(digits),
        '-s',
        `${period}s`,
        '-N',
        `@${at}`,
        '-b',
        made.secret,
      ]);
      expect(ours.code).toBe(stdout.trim());
      expect(ours.remainingSeconds).toBe(period - (at % period));
    }
  });

  it('writes an otpauth URL that authenticator apps read', () => {
    const made = currentTotp({
      secret: 'JBSWY3DPEHPK3PXP',
      issuer: 'Files & Co',
      account: 'ada@example.com',
      digits: 6,
      period: 30,
      algorithm: 'sha1',
    });
    const url = new URL(made.otpauthUrl);
    expect([url.protocol, url.host]).toEqual(['otpauth:', 'totp']);
    expect(decodeURIComponent(url.pathname)).toBe('/Files & Co:ada@example.com');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      secret: 'JBSWY3DPEHPK3PXP',
      issuer: 'Files & Co',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });

  it('verifies the codes of the window and names which period matched', async () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    const at = 1_700_000_100;
    const { stdout } = await run('oathtool', ['--totp', '-N', `@${at - 30}`, '-w', '2', '-b', secret]);
    const [previous, current, next] = stdout.trim().split('\n');
    const check = (code: string, window: number) =>
      verifyTotp({ ...options(secret, { digits: 6 }), code, window }, at * 1000);
    expect(check(current!, 0)).toEqual({ valid: true, delta: 0 });
    expect(check(previous!, 1)).toEqual({ valid: true, delta: -1 });
    expect(check(next!, 1)).toEqual({ valid: true, delta: 1 });
    expect(check(next!, 0)).toEqual({ valid: false });
    expect(check(current === '000000' ? '000001' : '000000', 2).valid).toBe(false);
  });

  it('refuses a secret that is not base32', async () => {
    expect(await codeOf(() => currentTotp(options('not-base32!')))).toBe('invalid_input');
  });
});

describe('password-strength, as zxcvbn scores', () => {
  it('gives the published guesses of the common passwords', () => {
    // zxcvbn's published results: "password" is guessed in 3 tries, "abc123" in 14.
    expect(passwordStrength('password').score).toBe(0);
    expect(passwordStrength('password').guessesLog10).toBeCloseTo(Math.log10(3), 6);
    expect(passwordStrength('abc123').guessesLog10).toBeCloseTo(Math.log10(14), 6);
    expect(passwordStrength('password').warning).not.toBe('');
    expect(passwordStrength('correcthorsebatterystaple').score).toBe(4);
  });

  it('counts the caller’s own words as guessable', () => {
    const alone = passwordStrength('lovelace1815');
    const known = passwordStrength('lovelace1815', ['lovelace']);
    expect(known.guessesLog10).toBeLessThan(alone.guessesLog10);
  });

  it('tells the time to guess online and offline, and suggestions', () => {
    const result = passwordStrength('qwerty');
    expect(result.crackTimeSeconds.online).toBeGreaterThan(result.crackTimeSeconds.offline);
    expect(result.suggestions.length).toBeGreaterThan(0);
  });
});
