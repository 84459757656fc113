import { verifyJwt } from '#shared/crypto/jwt-verify.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { jwtVerifyRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(jwtVerifyRoute, ({ body }) => verifyJwt(body));
