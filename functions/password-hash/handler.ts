import { hashPassword } from '#shared/crypto/password-hash.ts';
import { passwordHashBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('password-hash', passwordHashBody, async ({ body }) => ({
  algorithm: body.algorithm,
  hash: await hashPassword(body.password, body.algorithm),
}));
