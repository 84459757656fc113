import { verifyJwt } from '#shared/crypto/jwt-verify.ts';
import { jwtVerifyBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('jwt-verify', jwtVerifyBody, ({ body }) => verifyJwt(body));
