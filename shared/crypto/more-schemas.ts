import * as z from 'zod';
import { jwsAlgorithms } from '#shared/crypto/schemas.ts';
import { allRules, exactlyOneOf, when, whenOrDefault, without } from '#shared/schema-rules.ts';
import { unicodeText } from '#shared/text/schemas.ts';

const seconds = z
  .number()
  .int()
  .min(0)
  .max(10 * 365 * 24 * 3600);

export const jwtSignBody = z
  .strictObject({
    payload: z
      .record(z.string(), z.unknown())
      .describe('The claims; iat is set, and exp, nbf, iss, aud, sub from the fields below.'),
    secret: unicodeText().min(1).optional().describe('The HMAC secret (UTF-8) for HS256, HS384, HS512.'),
    privateKey: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .describe(
        'A PEM private key (PKCS#8, PKCS#1 or SEC 1) or a private JWK: RSA ≥ 2048 bits, EC P-256/384/521, Ed25519.',
      ),
    algorithm: z
      .enum(jwsAlgorithms)
      .optional()
      .describe(
        'Default: HS256 with a secret, the key’s own (RS256, ES256/384/512, EdDSA) with a private key.',
      ),
    expiresIn: seconds.optional().describe('exp: this many seconds after iat.'),
    notBefore: seconds.optional().describe('nbf: this many seconds after iat.'),
    issuer: z.string().min(1).optional(),
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    subject: z.string().min(1).optional(),
    keyId: z.string().min(1).optional().describe('The kid header.'),
  })
  .refine((body) => (body.secret === undefined) !== (body.privateKey === undefined), {
    message: 'send exactly one of secret (HS*) or privateKey (RS*, PS*, ES*, EdDSA)',
  })
  .meta(exactlyOneOf('secret', 'privateKey'));
export const jwtSignResult = z.object({ token: z.string() });

export const keypairTypes = ['rsa', 'ec', 'ed25519', 'x25519'] as const;
export const keyCurves = ['P-256', 'P-384', 'P-521'] as const;

export const keypairBody = z
  .strictObject({
    type: z.enum(keypairTypes).default('rsa'),
    modulusLength: z.literal([2048, 3072, 4096]).optional().describe('RSA only; default 2048.'),
    curve: z.enum(keyCurves).optional().describe('EC only; default P-256.'),
    format: z
      .enum(['pem', 'jwk'])
      .default('pem')
      .describe('pem: SPKI public and PKCS#8 private keys; jwk: both as JWK.'),
  })
  .refine((body) => body.modulusLength === undefined || body.type === 'rsa', {
    message: 'modulusLength is for type rsa only',
    path: ['modulusLength'],
  })
  .refine((body) => body.curve === undefined || body.type === 'ec', {
    message: 'curve is for type ec only',
    path: ['curve'],
  })
  .meta(
    allRules(
      when({ type: ['ec', 'ed25519', 'x25519'] }, without('modulusLength')),
      whenOrDefault('type', ['rsa', 'ed25519', 'x25519'], without('curve')),
    ),
  );
export const keypairResult = z.object({
  type: z.enum(keypairTypes),
  publicKey: z.union([z.string(), z.record(z.string(), z.unknown())]),
  privateKey: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

const totpFields = {
  issuer: z.string().min(1).max(200).optional(),
  account: z.string().min(1).max(200).optional(),
  digits: z.literal([6, 8]).default(6),
  period: z.number().int().min(1).max(3600).default(30).describe('Seconds.'),
  algorithm: z.enum(['sha1', 'sha256', 'sha512']).default('sha1'),
};

export const totpBody = z.strictObject({
  secret: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe('Base32 (RFC 4648); absent: a new random 160-bit one.'),
  ...totpFields,
});
export const totpResult = z.object({
  secret: z.string(),
  otpauthUrl: z.string(),
  code: z.string(),
  remainingSeconds: z.number().int(),
});

export const totpVerifyBody = z.strictObject({
  secret: z.string().min(1).max(1024).describe('Base32 (RFC 4648).'),
  code: z.string().regex(/^\d{6,8}$/, 'must be 6 to 8 digits'),
  window: z
    .number()
    .int()
    .min(0)
    .max(2)
    .default(1)
    .describe('Periods before and after the current one to accept.'),
  ...totpFields,
});
export const totpVerifyResult = z.object({
  valid: z.boolean(),
  delta: z
    .number()
    .int()
    .optional()
    .describe('Which period matched: −1 the previous, 0 the current, 1 the next.'),
});

export const passwordStrengthBody = z.strictObject({
  password: unicodeText().min(1).max(256).describe('At most 256 characters (zxcvbn reads no more).'),
  userInputs: z
    .array(z.string().min(1).max(100))
    .max(100)
    .default([])
    .describe('Words an attacker would try first: the user’s name, the site’s name.'),
});
export const passwordStrengthResult = z.object({
  score: z.number().int().min(0).max(4),
  guessesLog10: z.number(),
  crackTimeSeconds: z.object({
    online: z.number().describe('Throttled to 100 guesses an hour.'),
    offline: z.number().describe('A slow hash: 10 000 guesses a second.'),
  }),
  warning: z.string(),
  suggestions: z.array(z.string()),
});
