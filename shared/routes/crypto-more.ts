import {
  jwtSignBody,
  jwtSignResult,
  keypairBody,
  keypairResult,
  passwordStrengthBody,
  passwordStrengthResult,
  totpBody,
  totpResult,
  totpVerifyBody,
  totpVerifyResult,
} from '#shared/crypto/more-schemas.ts';
import { bufferedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, type RouteSpec } from '#shared/routes/types.ts';

const crypto = { method: 'POST', kind: 'json', tag: 'Crypto' } as const;

export const jwtSignRoute = defineRoute({
  ...crypto,
  path: '/jwt-sign',
  function: 'jwt-sign',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Sign a JWT',
  description:
    'A JWS compact token that /jwt-verify accepts. Send exactly one key: `secret` for HS256/384/512, or `privateKey` ' +
    '(PEM or JWK) for RS*, PS* (RSA ≥ 2048 bits), ES256/384/512 (by the curve) and EdDSA. The key decides which ' +
    'algorithms fit, as in /jwt-verify; an `algorithm` that does not fit, an unreadable or public key, or a `secret` ' +
    'that is really a PEM or JWK key answers 400 `invalid_input`. `iat` is always set; `expiresIn` and `notBefore` ' +
    'are seconds after it.',
  body: jwtSignBody,
  response: jwtSignResult,
  example: {
    payload: { sub: '1234567890', name: 'John Doe' },
    secret: 'your-256-bit-secret',
    expiresIn: 3600,
  },
  responseExample: {
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNzk1ODY3MjAwLCJleHAiOjE3OTU4NzA4MDB9.zEH7ZBYoAXOSaX1pCwnEQNCRoGzyozZ0hdSaCz0Zf7c',
  },
  errors: ['invalid_input'],
});

export const keypairRoute = defineRoute({
  ...crypto,
  path: '/keypair',
  function: 'keypair',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: [], outputs: ['json'] },
  summary: 'Generate a key pair (RSA, EC, Ed25519, X25519)',
  description:
    'A new key pair from the CSPRNG: RSA (`modulusLength` 2048, 3072 or 4096), EC (`curve` P-256, P-384 or P-521), ' +
    'Ed25519 (signing) or X25519 (key agreement). PEM writes SPKI public and PKCS#8 private keys; jwk writes both as ' +
    'JWK objects. RSA 4096 takes a second or so.',
  body: keypairBody,
  response: keypairResult,
  example: { type: 'ed25519' },
  responseExample: {
    type: 'ed25519',
    publicKey:
      '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA+BF48/BNZCg5q4l5cMi/ZP782N2Jdmqtx7EwnR/7LjI=\n-----END PUBLIC KEY-----\n',
    privateKey:
      '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHMMJNqFe7AK0LO+Mdiz7UrvFhowUIldWm+hJTGOEMsj\n-----END PRIVATE KEY-----\n',
  },
  errors: [],
});

export const totpRoute = defineRoute({
  ...crypto,
  path: '/totp',
  function: 'totp',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Current TOTP code (RFC 6238), and a new secret',
  description:
    'The code of the current period for `secret` (base32; spaces and padding are ignored), or for a new random ' +
    '160-bit secret when none is sent, with an otpauth:// URL for authenticator apps and the seconds left in the ' +
    'period. A secret that is not base32 answers 400 `invalid_input`.',
  body: totpBody,
  response: totpResult,
  example: { secret: 'JBSWY3DPEHPK3PXP', issuer: 'Acme', account: 'ada@example.com' },
  responseExample: {
    secret: 'JBSWY3DPEHPK3PXP',
    otpauthUrl:
      'otpauth://totp/Acme:ada%40example.com?issuer=Acme&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
    code: '061836',
    remainingSeconds: 11,
  },
  errors: ['invalid_input'],
});

export const totpVerifyRoute = defineRoute({
  ...crypto,
  path: '/totp-verify',
  function: 'totp-verify',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Check a TOTP code',
  description:
    'Whether `code` is the code of the current period or of one within `window` periods of it (default 1, to allow ' +
    'for clock drift); `delta` says which. The options must be those the code was made with.',
  body: totpVerifyBody,
  response: totpVerifyResult,
  example: { secret: 'JBSWY3DPEHPK3PXP', code: '325249' },
  responseExample: { valid: false },
  errors: ['invalid_input'],
});

export const passwordStrengthRoute = defineRoute({
  ...crypto,
  path: '/password-strength',
  function: 'password-strength',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Estimate the strength of a password (zxcvbn)',
  description:
    "zxcvbn's estimate with its common and English dictionaries: score 0 (guessed at once) to 4 (very hard), log10 " +
    'of the guesses needed, the time to guess it online (throttled to 100 guesses an hour) and offline (a slow hash, ' +
    '10 000 guesses a second), and feedback in English. `userInputs` are words an attacker would try first.',
  body: passwordStrengthBody,
  response: passwordStrengthResult,
  example: { password: 'correct horse battery staple', userInputs: ['ada'] },
  responseExample: {
    score: 4,
    guessesLog10: 19.7220819284034,
    crackTimeSeconds: { online: 1.89838559232e21, offline: 5273293312000000 },
    warning: '',
    suggestions: [],
  },
  errors: [],
});

export const moreCryptoRoutes: RouteSpec[] = [
  jwtSignRoute,
  keypairRoute,
  totpRoute,
  totpVerifyRoute,
  passwordStrengthRoute,
];
