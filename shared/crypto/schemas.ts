import * as z from 'zod';
import { hmacAlgorithms, passwordHashAlgorithms, randomEncodings } from '#shared/crypto/limits.ts';
import { exactlyOneOf, never } from '#shared/schema-rules.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';
import { digestEncodings, hashAlgorithms } from '#shared/text/limits.ts';
import { unicodeText } from '#shared/text/schemas.ts';

export type HmacAlgorithm = (typeof hmacAlgorithms)[number];

export type RandomEncoding = (typeof randomEncodings)[number];

export type PasswordAlgorithm = (typeof passwordHashAlgorithms)[number];

/** The JWS algorithms /jwt-verify knows; `none` is deliberately not one of them. */
export const jwsAlgorithms = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
export type JwsAlgorithm = (typeof jwsAlgorithms)[number];

export const jwtRejections = [
  'algorithm_not_allowed',
  'signature_invalid',
  'expired',
  'not_yet_valid',
  'claim_invalid',
  'token_invalid',
] as const;
export type JwtRejection = (typeof jwtRejections)[number];

export const hmacBody = z.strictObject({
  text: unicodeText().describe('The message, as UTF-8 bytes.'),
  key: unicodeText().min(1).describe('The key, as UTF-8 bytes.'),
  algorithm: z.enum(hmacAlgorithms).default('sha256'),
  encoding: z.enum(digestEncodings).default('hex'),
});
export const hmacResult = z.object({
  algorithm: z.enum(hmacAlgorithms),
  encoding: z.enum(digestEncodings),
  hmac: z.string(),
});

export const uuidBody = z.strictObject({
  version: z.literal([4, 7]).default(4).describe('4: random; 7: time-ordered (RFC 9562).'),
  count: z.number().int().min(1).max(100).default(1),
});
export const uuidResult = z.object({ uuids: z.array(z.string()) });

export const randomBytesBody = z.strictObject({
  bytes: z.number().int().min(1).max(1024).default(32),
  encoding: z.enum(randomEncodings).default('hex').describe('base64 is padded, base64url is not.'),
});
export const randomBytesResult = z.object({ random: z.string() });

export const passwordGenerateBody = z
  .strictObject({
    length: z.number().int().min(8).max(128).default(20),
    uppercase: z.boolean().default(true),
    lowercase: z.boolean().default(true),
    digits: z.boolean().default(true),
    symbols: z.boolean().default(true),
  })
  .refine((body) => body.uppercase || body.lowercase || body.digits || body.symbols, {
    message: 'at least one of uppercase, lowercase, digits, symbols must be true',
  })
  .meta(never({ uppercase: false, lowercase: false, digits: false, symbols: false }));
export const passwordGenerateResult = z.object({ password: z.string() });

export const passwordHashBody = z.strictObject({
  password: unicodeText().min(1),
  algorithm: z.enum(passwordHashAlgorithms).default('argon2id'),
});
export const passwordHashResult = z.object({ algorithm: z.enum(passwordHashAlgorithms), hash: z.string() });

export const passwordVerifyBody = z.strictObject({
  password: unicodeText().min(1),
  hash: z
    .string()
    .min(1)
    .describe('An argon2 PHC string, a bcrypt hash ($2a$, $2b$, $2y$) or a $scrypt$ PHC string.'),
});
export const passwordVerifyResult = z.object({ valid: z.boolean() });

export const jwtDecodeBody = z.strictObject({
  token: z.string().min(1).describe('A JWS compact serialisation.'),
});
export const jwtDecodeResult = z.object({
  header: z.record(z.string(), z.unknown()),
  payload: z.record(z.string(), z.unknown()),
});

export const jwtVerifyBody = z
  .strictObject({
    token: z.string().min(1),
    secret: unicodeText().min(1).optional().describe('The HMAC secret (UTF-8) for HS256, HS384, HS512.'),
    publicKey: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .describe(
        'A PEM public key or certificate, or one public JWK (object or JSON string): RSA, EC P-256/384/521, Ed25519.',
      ),
    algorithms: z
      .array(z.enum(jwsAlgorithms))
      .min(1)
      .optional()
      .describe('Accepted algorithms; default: every algorithm the key can verify. Each must fit the key.'),
  })
  .refine((body) => (body.secret === undefined) !== (body.publicKey === undefined), {
    message: 'send exactly one of secret (HS*) or publicKey (RS*, PS*, ES*, EdDSA)',
  })
  .meta(exactlyOneOf('secret', 'publicKey'));
export const jwtVerifyResult = z.object({
  valid: z.boolean(),
  payload: z.record(z.string(), z.unknown()).optional().describe('The verified claims, only when valid.'),
  reason: z.enum(jwtRejections).optional().describe('Why the token is not valid, only when not valid.'),
});

export const encryptBody = z.strictObject({
  text: unicodeText(),
  passphrase: unicodeText().min(1),
});
export const encryptResult = z.object({ ciphertext: z.string() });

export const decryptBody = z.strictObject({
  ciphertext: z.string().min(1).describe('The `ciphertext` of /encrypt.'),
  passphrase: unicodeText().min(1),
});
export const decryptResult = z.object({ text: z.string() });

export const checksumBody = z.strictObject({
  sourceUrl: httpUrlField().describe('An absolute http(s) URL of the file to hash (any format).'),
  algorithm: z.enum(hashAlgorithms).default('sha256'),
});
export const checksumResult = z.object({
  algorithm: z.enum(hashAlgorithms),
  hash: z.string().describe('Lowercase hex.'),
  sizeBytes: z.number().int(),
});
