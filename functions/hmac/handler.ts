import { hmac } from '#shared/crypto/hmac.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { hmacRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(hmacRoute, ({ body }) => ({
  algorithm: body.algorithm,
  encoding: body.encoding,
  hmac: hmac(body.text, body.key, body.algorithm, body.encoding),
}));
