import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { base64url, type CompactJWSHeaderParameters, exportJWK, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeToken } from '#shared/crypto/jwt-decode.ts';
import { verifyJwt } from '#shared/crypto/jwt-verify.ts';
import { codeOf } from '../../support/http-error.ts';

// RFC 7515 Appendix A.1 (= RFC 7519 §3.1): HS256, key from the JWK below, exp in March 2011.
const rfcHs256 =
  'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const rfcHs256Key = base64url.decode(
  'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow',
);
// RFC 7515 Appendix A.3: ES256 over the same claims, and the public half of its P-256 key.
const rfcEs256 =
  'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q';
const rfcEs256Jwk = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};
const rfcClaims = { iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true };
const inMarch2011 = new Date('2011-03-01T00:00:00Z');

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

const sign = (claims: JWTPayload, header: CompactJWSHeaderParameters, key: KeyObject | Uint8Array) =>
  new SignJWT(claims).setProtectedHeader(header).sign(key);

describe('decodeToken', () => {
  it('reads the RFC 7519 example without a key', () => {
    expect(decodeToken(rfcHs256)).toEqual({ header: { typ: 'JWT', alg: 'HS256' }, payload: rfcClaims });
  });

  it('reads an unsecured (alg none) token, since it verifies nothing', () => {
    expect(decodeToken(`${b64({ alg: 'none' })}.${b64({ sub: 'x' })}.`).header).toEqual({ alg: 'none' });
  });

  it.each([
    ['one part', 'abc'],
    ['two parts', 'abc.def'],
    ['four parts', 'a.b.c.d'],
    ['a JWE', 'a.b.c.d.e'],
    ['a header that is not JSON', `${Buffer.from('nope').toString('base64url')}.${b64({})}.sig`],
    ['a header that is an array', `${b64([1])}.${b64({})}.sig`],
    ['claims that are an array', `${b64({ alg: 'HS256' })}.${b64([1, 2])}.sig`],
    ['claims that are not JSON', `${b64({ alg: 'HS256' })}.${Buffer.from('{x').toString('base64url')}.sig`],
    ['characters outside base64url', `${b64({ alg: 'HS256' })}.${b64({})}.si+g/`],
    ['an empty header', `.${b64({})}.sig`],
  ])('refuses %s with invalid_input', async (_name, token) => {
    expect(await codeOf(() => decodeToken(token))).toBe('invalid_input');
  });
});

describe('verifyJwt with the RFC examples', () => {
  it('HS256 (RFC 7515 A.1) is valid at its time and expired now', async () => {
    expect(await verifyJwt({ token: rfcHs256, secret: rfcHs256Key, now: inMarch2011 })).toEqual({
      valid: true,
      payload: rfcClaims,
    });
    expect(await verifyJwt({ token: rfcHs256, secret: rfcHs256Key })).toEqual({
      valid: false,
      reason: 'expired',
    });
  });

  it('ES256 (RFC 7515 A.3) verifies with the public JWK, as object and as JSON text', async () => {
    expect(await verifyJwt({ token: rfcEs256, publicKey: rfcEs256Jwk, now: inMarch2011 })).toMatchObject({
      valid: true,
    });
    expect(
      await verifyJwt({ token: rfcEs256, publicKey: JSON.stringify(rfcEs256Jwk), now: inMarch2011 }),
    ).toMatchObject({
      valid: true,
    });
  });

  it('a changed signature, header or claim is signature_invalid', async () => {
    const [header, payload, signature] = rfcEs256.split('.') as [string, string, string];
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    const otherClaims = b64({ ...rfcClaims, iss: 'eve' });
    for (const token of [`${header}.${payload}.${flipped}`, `${header}.${otherClaims}.${signature}`]) {
      expect(await verifyJwt({ token, publicKey: rfcEs256Jwk, now: inMarch2011 })).toEqual({
        valid: false,
        reason: 'signature_invalid',
      });
    }
    expect(await verifyJwt({ token: rfcHs256, secret: 'not the key', now: inMarch2011 })).toEqual({
      valid: false,
      reason: 'signature_invalid',
    });
  });
});

describe('verifyJwt with generated keys', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const ed25519 = generateKeyPairSync('ed25519');
  const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }) as string;
  let rsaJwk: Record<string, unknown>;

  beforeAll(async () => {
    rsaJwk = { ...(await exportJWK(rsa.publicKey)) };
  });

  it.each([
    ['RS256', rsa],
    ['PS512', rsa],
    ['ES384', p384],
    ['EdDSA', ed25519],
    ['Ed25519', ed25519],
  ] as const)('%s verifies with a PEM public key', async (alg, pair) => {
    const token = await sign({ sub: 'alice', exp: now() + 60 }, { alg }, pair.privateKey);
    expect(await verifyJwt({ token, publicKey: pem(pair.publicKey) })).toEqual({
      valid: true,
      payload: { sub: 'alice', exp: expect.any(Number) },
    });
  });

  it('RS256 verifies with a JWK, and a JWK "alg" narrows what it accepts', async () => {
    const token = await sign({ sub: 'bob' }, { alg: 'RS256' }, rsa.privateKey);
    expect(await verifyJwt({ token, publicKey: rsaJwk })).toMatchObject({ valid: true });
    expect(await verifyJwt({ token, publicKey: { ...rsaJwk, alg: 'PS256' } })).toEqual({
      valid: false,
      reason: 'algorithm_not_allowed',
    });
    expect(await codeOf(() => verifyJwt({ token, publicKey: { ...rsaJwk, alg: 'ES256' } }))).toBe(
      'invalid_input',
    );
  });

  it('an X.509 certificate is not needed: a PKCS#1 RSA public key works too', async () => {
    const token = await sign({ sub: 'carol' }, { alg: 'RS384' }, rsa.privateKey);
    const pkcs1 = rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(await verifyJwt({ token, publicKey: pkcs1 })).toMatchObject({ valid: true });
  });

  it('time claims: expired, not yet valid, malformed', async () => {
    const secret = 'a-shared-secret-of-enough-length!';
    const key = new TextEncoder().encode(secret);
    const cases = [
      [{ exp: now() - 10 }, 'expired'],
      [{ nbf: now() + 3600 }, 'not_yet_valid'],
      [{ exp: 'tomorrow' }, 'claim_invalid'],
    ] as const;
    for (const [claims, reason] of cases) {
      const token = await sign(claims as JWTPayload, { alg: 'HS256' }, key);
      expect(await verifyJwt({ token, secret })).toEqual({ valid: false, reason });
    }
  });

  it('an unknown critical header is token_invalid', async () => {
    const key = new TextEncoder().encode('secret');
    const token = await sign(
      {},
      { alg: 'HS256', crit: ['exp-x'], 'exp-x': 1 } as CompactJWSHeaderParameters,
      key,
    ).catch(() => {
      // jose will not sign with an unknown crit: build the token by hand.
      const input = `${b64({ alg: 'HS256', crit: ['exp-x'], 'exp-x': 1 })}.${b64({})}`;
      return `${input}.${createHmac('sha256', 'secret').update(input).digest('base64url')}`;
    });
    expect(await verifyJwt({ token, secret: 'secret' })).toEqual({ valid: false, reason: 'token_invalid' });
  });

  it('`algorithms` narrows the accepted algorithms and must fit the key', async () => {
    const token = await sign({}, { alg: 'RS256' }, rsa.privateKey);
    expect(
      await verifyJwt({ token, publicKey: pem(rsa.publicKey), algorithms: ['PS256', 'RS256'] }),
    ).toMatchObject({
      valid: true,
    });
    expect(await verifyJwt({ token, publicKey: pem(rsa.publicKey), algorithms: ['PS256'] })).toEqual({
      valid: false,
      reason: 'algorithm_not_allowed',
    });
    expect(
      await codeOf(() => verifyJwt({ token, publicKey: pem(rsa.publicKey), algorithms: ['HS256'] })),
    ).toBe('invalid_input');
    expect(await codeOf(() => verifyJwt({ token, secret: 'x', algorithms: ['RS256'] }))).toBe(
      'invalid_input',
    );
  });

  describe('refuses alg none and algorithm confusion', () => {
    it('alg none is never valid, whatever the key', async () => {
      const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'admin' })}.`;
      expect(await verifyJwt({ token, secret: 'secret' })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
      expect(await verifyJwt({ token, publicKey: pem(rsa.publicKey) })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
      const noneWithSignature = `${b64({ alg: 'None' })}.${b64({ sub: 'admin' })}.${b64('x')}`;
      expect(await verifyJwt({ token: noneWithSignature, secret: 'secret' })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
    });

    it('an HS256 token "signed" with the public key bytes does not verify against that public key', async () => {
      const publicPem = pem(rsa.publicKey);
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'admin' })}`;
      const forged = `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
      expect(await verifyJwt({ token: forged, publicKey: publicPem })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
      expect(await verifyJwt({ token: forged, publicKey: rsaJwk })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
      // Nor can the public key be passed off as the secret.
      expect(await codeOf(() => verifyJwt({ token: forged, secret: publicPem }))).toBe('invalid_input');
      expect(await codeOf(() => verifyJwt({ token: forged, secret: JSON.stringify(rsaJwk) }))).toBe(
        'invalid_input',
      );
    });

    it('an RS256 token does not verify against a secret, nor an ES token against an RSA key', async () => {
      const rs = await sign({}, { alg: 'RS256' }, rsa.privateKey);
      expect(await verifyJwt({ token: rs, secret: 'secret' })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
      const es = await sign({}, { alg: 'ES384' }, p384.privateKey);
      expect(await verifyJwt({ token: es, publicKey: pem(rsa.publicKey) })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
      // An ES256 header over a P-384 key: the curve fixes the algorithm.
      expect(await verifyJwt({ token: rfcEs256, publicKey: pem(p384.publicKey), now: inMarch2011 })).toEqual({
        valid: false,
        reason: 'algorithm_not_allowed',
      });
    });
  });

  describe('refuses keys it should not use', () => {
    it.each([
      ['a private PEM key', () => rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string],
      ['a private JWK', () => ({ ...rfcEs256Jwk, d: 'jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI' })],
      ['a symmetric JWK', () => ({ kty: 'oct', k: 'c2VjcmV0' })],
      ['a JWK set', () => ({ keys: [rfcEs256Jwk] })],
      ['an RSA key of 1024 bits', () => pem(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey)],
      ['a secp256k1 key', () => pem(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey)],
      ['a broken PEM', () => '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'],
      ['text that is no key', () => 'my-public-key'],
      ['a JWK missing its coordinates', () => ({ kty: 'EC', crv: 'P-256' })],
    ])('%s → invalid_input', async (_name, key) => {
      expect(await codeOf(() => verifyJwt({ token: rfcEs256, publicKey: key() }))).toBe('invalid_input');
    });

    it('never echoes a key or secret in its message', async () => {
      const secret = '-----BEGIN PUBLIC KEY----- hunter2';
      try {
        await verifyJwt({ token: rfcHs256, secret });
        expect.unreachable();
      } catch (error) {
        expect((error as Error).message).not.toContain('hunter2');
      }
    });
  });
});
