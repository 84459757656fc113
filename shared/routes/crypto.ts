import {
  checksumBody,
  checksumResult,
  decryptBody,
  decryptResult,
  encryptBody,
  encryptResult,
  hmacBody,
  hmacResult,
  jwtDecodeBody,
  jwtDecodeResult,
  jwtVerifyBody,
  jwtVerifyResult,
  passwordGenerateBody,
  passwordGenerateResult,
  passwordHashBody,
  passwordHashResult,
  passwordVerifyBody,
  passwordVerifyResult,
  randomBytesBody,
  randomBytesResult,
  uuidBody,
  uuidResult,
} from '#shared/crypto/schemas.ts';
import { bufferedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, downloadErrors, type RouteSpec } from '#shared/routes/types.ts';

const crypto = { method: 'POST', kind: 'json', tag: 'Crypto' } as const;

export const hmacRoute = defineRoute({
  ...crypto,
  path: '/hmac',
  function: 'hmac',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'HMAC of text under a key',
  description: 'HMAC (RFC 2104) of the UTF-8 bytes of `text` under the UTF-8 bytes of `key`.',
  body: hmacBody,
  response: hmacResult,
  example: { text: 'hello', key: 'my-secret' },
  responseExample: {
    algorithm: 'sha256',
    encoding: 'hex',
    hmac: '7c1ce32402750db1149385ac20603beeaca8909906d1e81c08f4f5c7db8fbe94',
  },
  errors: [],
});

export const uuidRoute = defineRoute({
  ...crypto,
  path: '/uuid',
  function: 'uuid',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: [], outputs: ['json'] },
  summary: 'Generate UUIDs (v4 or v7)',
  description:
    'Lowercase RFC 9562 UUIDs: version 4 (random) or 7 (Unix time in milliseconds, then random; sortable).',
  body: uuidBody,
  response: uuidResult,
  example: { version: 7, count: 3 },
  responseExample: {
    uuids: [
      '01a20250-69f1-7622-a8e3-f9abcba5420b',
      '01a20250-69f3-710b-bffd-0ad4731a57b0',
      '01a20250-69f3-710b-bffd-0e7edcf52d29',
    ],
  },
  errors: [],
});

export const randomBytesRoute = defineRoute({
  ...crypto,
  path: '/random-bytes',
  function: 'random-bytes',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: [], outputs: ['json'] },
  summary: 'Cryptographically secure random bytes',
  description: "Bytes from the operating system's CSPRNG. base64 is padded, base64url is not.",
  body: randomBytesBody,
  response: randomBytesResult,
  example: { bytes: 16, encoding: 'hex' },
  responseExample: { random: 'e2ff4d5a0381fb0454107a6e3759882a' },
  errors: [],
});

export const passwordGenerateRoute = defineRoute({
  ...crypto,
  path: '/password-generate',
  function: 'password-generate',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: [], outputs: ['json'] },
  summary: 'Generate a random password',
  description:
    'Characters are drawn uniformly from the enabled classes with a CSPRNG (no modulo bias), and every enabled ' +
    'class appears at least once. Symbols are `!#$%&()*+,-./:;<=>?@[]^_{|}~` (no quotes, backslash, backtick or ' +
    'space). All four classes switched off answers 400 `validation_failed`.',
  body: passwordGenerateBody,
  response: passwordGenerateResult,
  example: { length: 24, symbols: false },
  responseExample: { password: 'zWwByzb5LFp1Baq3CFd7d0GZ' },
  errors: [],
});

export const passwordHashRoute = defineRoute({
  ...crypto,
  path: '/password-hash',
  function: 'password-hash',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Hash a password (argon2id, bcrypt, scrypt)',
  description:
    'Standard encoded forms with a random salt and fixed costs: argon2id as a PHC string ' +
    '`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`; bcrypt as `$2b$11$…`; scrypt as a PHC string ' +
    '`$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (N = 2^ln; salt 16 bytes and hash 32 bytes in unpadded standard base64). ' +
    'bcrypt reads only 72 bytes, so a longer password is refused with 400 `invalid_input` rather than cut silently.',
  body: passwordHashBody,
  response: passwordHashResult,
  example: { password: 'correct horse battery staple', algorithm: 'argon2id' },
  responseExample: {
    algorithm: 'argon2id',
    hash: '$argon2id$v=19$m=19456,t=2,p=1$Msy3zhhqSvTlGfPj7LBMcQ$dHSk1gBI6Zb+W9hXme+Af50SoUmBspSSoRUv2JyQ2G4',
  },
  errors: ['invalid_input'],
});

export const passwordVerifyRoute = defineRoute({
  ...crypto,
  path: '/password-verify',
  function: 'password-verify',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Check a password against a hash',
  description:
    'The algorithm and its costs are read from the hash: argon2id/argon2i/argon2d PHC strings, bcrypt ' +
    '(`$2a$`, `$2b$`, `$2y$`) and `$scrypt$` PHC strings. Any other form, a malformed hash, or costs beyond ' +
    'argon2 64 MiB × 4 passes, bcrypt cost 13 or scrypt 64 MiB answer 400 `invalid_input`. A wrong password is ' +
    '`{valid: false}`.',
  body: passwordVerifyBody,
  response: passwordVerifyResult,
  example: {
    password: 'password',
    hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
  },
  responseExample: { valid: true },
  errors: ['invalid_input'],
});

export const jwtDecodeRoute = defineRoute({
  ...crypto,
  path: '/jwt-decode',
  function: 'jwt-decode',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Read a JWT without verifying it',
  description:
    'Header and claims of a signed JWT (JWS compact serialisation), WITHOUT checking the signature: never trust ' +
    'them for access decisions. A token that is not three base64url parts with a JSON object header and claims ' +
    'set, or an encrypted JWT (JWE), answers 400 `invalid_input`.',
  body: jwtDecodeBody,
  response: jwtDecodeResult,
  example: {
    token:
      'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  },
  responseExample: {
    header: { typ: 'JWT', alg: 'HS256' },
    payload: { iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true },
  },
  errors: ['invalid_input'],
});

export const jwtVerifyRoute = defineRoute({
  ...crypto,
  path: '/jwt-verify',
  function: 'jwt-verify',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Verify a JWT signature and its time claims',
  description:
    'Send exactly one key: `secret` (UTF-8) for HS256/384/512, or `publicKey` for RS*, PS* (RSA ≥ 2048 bits), ES256/384/512 ' +
    '(P-256/384/521) and EdDSA/Ed25519, as PEM (SPKI, PKCS#1 or an X.509 certificate) or one public JWK. The key decides ' +
    'which algorithms may be used, never the token: `alg: none`, an HS token against a public key and an RS token ' +
    'against a secret are all `{valid: false, reason: "algorithm_not_allowed"}`. `exp` and `nbf` are checked against ' +
    'the current time with no leeway. Answers `{valid: true, payload}` or `{valid: false, reason}` with reason one of ' +
    'algorithm_not_allowed, signature_invalid, expired, not_yet_valid, claim_invalid (e.g. a non-numeric exp), ' +
    'token_invalid (e.g. an unsupported critical header). A request that cannot be judged answers 400 `invalid_input`: ' +
    'a malformed token (as /jwt-decode), an unreadable, private, symmetric or too weak `publicKey`, a `secret` that ' +
    'is really a PEM or JWK key, or `algorithms` that do not fit the key.',
  body: jwtVerifyBody,
  response: jwtVerifyResult,
  example: {
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    secret: 'your-256-bit-secret',
  },
  responseExample: {
    valid: true,
    payload: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
  },
  errors: ['invalid_input'],
});

export const encryptRoute = defineRoute({
  ...crypto,
  path: '/encrypt',
  function: 'encrypt',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Encrypt text with a passphrase (AES-256-GCM)',
  description:
    'AES-256-GCM under a key derived from the passphrase (NFC-normalised) with scrypt N = 2^15, r = 8, p = 1 and a ' +
    'random 16-byte salt. The answer is one unpadded base64url string: version byte 0x01 | salt (16) | nonce (12) | ' +
    'ciphertext | tag (16); the version, salt and nonce are authenticated as additional data. Only /decrypt with the ' +
    'same passphrase reads it.',
  body: encryptBody,
  response: encryptResult,
  example: { text: 'meet me at noon', passphrase: 'correct horse battery staple' },
  responseExample: {
    ciphertext: 'AQp7-069w9mkNimjcxCwD1bNcLK4OB-Jma9HendEHJt7ABfg6oKX4NTKVW6sVXeT13svriGO5ZDUf3XS',
  },
  errors: [],
});

export const decryptRoute = defineRoute({
  ...crypto,
  path: '/decrypt',
  function: 'decrypt',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['crypto'], inputs: ['text'], outputs: ['json'] },
  summary: 'Decrypt an /encrypt ciphertext',
  description:
    'A wrong passphrase and a changed, truncated or unknown-version ciphertext answer 400 `decrypt_failed` (the ' +
    'two cannot be told apart, by design); text with characters outside the base64url alphabet answers 400 `invalid_input`.',
  body: decryptBody,
  response: decryptResult,
  example: {
    ciphertext: 'AUtfh1PFbr964DwrFu56lflCtmim7EC0c5wKgPfXlWPa6xD5M_RXFyv68FRiczkVI4Y_TKXgqev6HtaX',
    passphrase: 'correct horse battery staple',
  },
  responseExample: { text: 'meet me at noon' },
  errors: ['invalid_input', 'decrypt_failed'],
});

export const checksumRoute = defineRoute({
  ...crypto,
  path: '/checksum',
  function: 'checksum',
  sizing: bufferedSizing(512, true),
  formats: { categories: ['crypto'], inputs: ['file'], outputs: ['json'] },
  summary: 'Checksum of a remote file',
  description:
    'Downloads `sourceUrl` under the source rules (no redirects, public addresses only, the tier’s size limit) and ' +
    'hashes the bytes while they stream in. Any file format; `hash` is lowercase hex.',
  body: checksumBody,
  response: checksumResult,
  example: {
    sourceUrl: 'https://deb.debian.org/debian/pool/main/h/hello/hello_2.10-3_amd64.deb',
    algorithm: 'sha256',
  },
  // The SHA256 and Size that Debian's signed bookworm package index lists for that file.
  responseExample: {
    algorithm: 'sha256',
    hash: '2e6e2f1a0007dc43bc91c273fd36e91e40a4f1c2765a03eca68b70a42103878a',
    sizeBytes: 53080,
  },
  errors: downloadErrors,
});

export const cryptoRoutes: RouteSpec[] = [
  hmacRoute,
  uuidRoute,
  randomBytesRoute,
  passwordGenerateRoute,
  passwordHashRoute,
  passwordVerifyRoute,
  jwtDecodeRoute,
  jwtVerifyRoute,
  encryptRoute,
  decryptRoute,
  checksumRoute,
];
