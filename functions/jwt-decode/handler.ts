import { decodeToken } from '#shared/crypto/jwt-decode.ts';
import { jwtDecodeBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('jwt-decode', jwtDecodeBody, ({ body }) => decodeToken(body.token));
