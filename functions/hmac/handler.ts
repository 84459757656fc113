import { hmac } from '#shared/crypto/hmac.ts';
import { hmacBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('hmac', hmacBody, ({ body }) => ({
  algorithm: body.algorithm,
  encoding: body.encoding,
  hmac: hmac(body.text, body.key, body.algorithm, body.encoding),
}));
