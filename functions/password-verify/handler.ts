import { verifyPassword } from '#shared/crypto/password-verify.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { passwordVerifyRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(passwordVerifyRoute, async ({ body }) => ({
  valid: await verifyPassword(body.password, body.hash),
}));
