import { randomBytesEncoded } from '#shared/crypto/random-bytes.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { randomBytesRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(randomBytesRoute, ({ body }) => ({
  random: randomBytesEncoded(body.bytes, body.encoding),
}));
