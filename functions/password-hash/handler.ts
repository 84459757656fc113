import { hashPassword } from '#shared/crypto/password-hash.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { passwordHashRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(passwordHashRoute, async ({ body }) => ({
  algorithm: body.algorithm,
  hash: await hashPassword(body.password, body.algorithm),
}));
