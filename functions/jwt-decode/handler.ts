import { decodeToken } from '#shared/crypto/jwt-decode.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { jwtDecodeRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(jwtDecodeRoute, ({ body }) => decodeToken(body.token));
