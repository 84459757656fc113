import { verifyPassword } from '#shared/crypto/password-verify.ts';
import { passwordVerifyBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('password-verify', passwordVerifyBody, async ({ body }) => ({
  valid: await verifyPassword(body.password, body.hash),
}));
