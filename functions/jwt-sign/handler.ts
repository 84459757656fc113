import { signJwt } from '#shared/crypto/jwt-sign.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { jwtSignRoute } from '#shared/routes/crypto-more.ts';

export const handler = createJsonHandler(jwtSignRoute, ({ body }) => signJwt(body));
