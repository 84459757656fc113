import { describe, expect, it } from 'vitest';
import { handler as decrypt } from '#functions/decrypt/handler.ts';
import { handler as encrypt } from '#functions/encrypt/handler.ts';
import { handler as hmac } from '#functions/hmac/handler.ts';
import { handler as jwtDecode } from '#functions/jwt-decode/handler.ts';
import { handler as jwtVerify } from '#functions/jwt-verify/handler.ts';
import { handler as passwordGenerate } from '#functions/password-generate/handler.ts';
import { handler as passwordHash } from '#functions/password-hash/handler.ts';
import { handler as passwordVerify } from '#functions/password-verify/handler.ts';
import { handler as randomBytes } from '#functions/random-bytes/handler.ts';
import { handler as uuid } from '#functions/uuid/handler.ts';
import { cryptoRoutes } from '#shared/routes/crypto.ts';
import { textRoutes } from '#shared/routes/text.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const post = async (handler: unknown, body: unknown) => {
  const answer = await call(handler, apiEvent(body));
  return { status: answer.statusCode, body: answer.json() as Record<string, unknown> };
};

const jwtIo =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('crypto routes through the middy stack', () => {
  it('POST /hmac', async () => {
    expect(await post(hmac, { text: 'what do ya want for nothing?', key: 'Jefe' })).toEqual({
      status: 200,
      body: {
        algorithm: 'sha256',
        encoding: 'hex',
        hmac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      },
    });
  });

  it('POST /uuid, /random-bytes and /password-generate take their defaults from an empty body', async () => {
    const uuids = await post(uuid, undefined);
    expect(uuids.body.uuids).toEqual([expect.stringMatching(/^[0-9a-f-]{14}4[0-9a-f-]{21}$/)]);
    expect(((await post(uuid, { version: 7, count: 3 })).body.uuids as string[]).map((u) => u[14])).toEqual([
      '7',
      '7',
      '7',
    ]);
    expect((await post(randomBytes, {})).body.random).toMatch(/^[0-9a-f]{64}$/);
    const password = (await post(passwordGenerate, {})).body.password as string;
    expect(password).toHaveLength(20);
    expect(password).toMatch(/[A-Z]/);
    expect(password).toMatch(/[a-z]/);
    expect(password).toMatch(/[0-9]/);
    expect(password).toMatch(/[^A-Za-z0-9]/);
  });

  it('POST /password-hash then /password-verify', async () => {
    const hashed = await post(passwordHash, { password: 'correct horse' });
    expect(hashed.body).toEqual({
      algorithm: 'argon2id',
      hash: expect.stringMatching(/^\$argon2id\$v=19\$/),
    });
    expect((await post(passwordVerify, { password: 'correct horse', hash: hashed.body.hash })).body).toEqual({
      valid: true,
    });
    expect((await post(passwordVerify, { password: 'wrong horse', hash: hashed.body.hash })).body).toEqual({
      valid: false,
    });
  });

  it('POST /jwt-decode and /jwt-verify', async () => {
    expect((await post(jwtDecode, { token: jwtIo })).body).toEqual({
      header: { alg: 'HS256', typ: 'JWT' },
      payload: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
    });
    expect((await post(jwtVerify, { token: jwtIo, secret: 'your-256-bit-secret' })).body).toEqual({
      valid: true,
      payload: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
    });
    expect(await post(jwtVerify, { token: jwtIo, secret: 'another secret' })).toEqual({
      status: 200,
      body: { valid: false, reason: 'signature_invalid' },
    });
  });

  it('POST /encrypt then /decrypt', async () => {
    const { body } = await post(encrypt, { text: 'meet me at noon', passphrase: 'pass' });
    expect((await post(decrypt, { ciphertext: body.ciphertext, passphrase: 'pass' })).body).toEqual({
      text: 'meet me at noon',
    });
  });

  it.each([
    ['/password-hash', passwordHash, { password: 'x'.repeat(73), algorithm: 'bcrypt' }],
    ['/password-verify', passwordVerify, { password: 'x', hash: '$1$md5crypt$abc' }],
    ['/jwt-decode', jwtDecode, { token: 'not-a-jwt' }],
    ['/jwt-verify', jwtVerify, { token: jwtIo, publicKey: 'not a key' }],
    ['/decrypt', decrypt, { ciphertext: 'no base64url!', passphrase: 'pass' }],
  ])('%s answers 400 invalid_input', async (_route, handler, body) => {
    const answer = await post(handler, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_input');
  });

  it('POST /decrypt answers 400 decrypt_failed for a wrong passphrase, without echoing it', async () => {
    const { body } = await post(encrypt, { text: 'x', passphrase: 'right' });
    const answer = await post(decrypt, { ciphertext: body.ciphertext, passphrase: 'wrong-passphrase' });
    expect(answer).toEqual({ status: 400, body: { error: 'decrypt_failed', message: expect.any(String) } });
    expect(answer.body.message).not.toContain('wrong-passphrase');
  });

  it.each([
    ['/hmac', hmac, { text: 'a', key: '' }, 'key:'],
    ['/hmac', hmac, { text: 'a', key: 'k', algorithm: 'md5' }, 'algorithm:'],
    ['/uuid', uuid, { count: 101 }, 'count:'],
    ['/uuid', uuid, { version: 5 }, 'version:'],
    ['/random-bytes', randomBytes, { bytes: 1025 }, 'bytes:'],
    ['/random-bytes', randomBytes, { bytes: 0 }, 'bytes:'],
    ['/password-generate', passwordGenerate, { length: 7 }, 'length:'],
    [
      '/password-generate',
      passwordGenerate,
      { uppercase: false, lowercase: false, digits: false, symbols: false },
      'at least one of uppercase, lowercase, digits, symbols',
    ],
    ['/password-hash', passwordHash, { password: 'x', algorithm: 'md5' }, 'algorithm:'],
    ['/password-verify', passwordVerify, { password: 'x' }, 'hash:'],
    ['/jwt-decode', jwtDecode, { jwt: 'x' }, 'jwt: unknown field'],
    ['/jwt-verify', jwtVerify, { token: jwtIo }, 'exactly one of secret'],
    ['/jwt-verify', jwtVerify, { token: jwtIo, secret: 's', publicKey: 'k' }, 'exactly one of secret'],
    ['/jwt-verify', jwtVerify, { token: jwtIo, secret: 's', algorithms: ['none'] }, 'algorithms.0:'],
    ['/encrypt', encrypt, { text: 'a', passphrase: '' }, 'passphrase:'],
    ['/decrypt', decrypt, { ciphertext: 'AQ' }, 'passphrase:'],
  ])('%s answers 400 validation_failed (%j)', async (_route, handler, body, mention) => {
    const answer = await post(handler, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('validation_failed');
    expect(answer.body.message).toContain(mention);
  });
});

describe('the route table examples work', () => {
  const offline = [...textRoutes, ...cryptoRoutes].filter((route) => route.path !== '/checksum');
  it.each(offline.map((route) => [route.path, route] as const))('%s', async (_path, route) => {
    const { handler } = (await import(`../../../functions/${route.function}/handler.ts`)) as {
      handler: unknown;
    };
    const answer = await post(handler, route.example);
    expect(answer.status).toBe(200);
    expect(route.response?.safeParse(answer.body).success).toBe(true);
    if (route.path === '/jwt-verify') expect(answer.body.valid).toBe(true);
    if (route.path === '/password-verify') expect(answer.body.valid).toBe(true);
    if (route.path === '/decrypt') expect(answer.body.text).toBe('meet me at noon');
  });
});
