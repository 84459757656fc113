import { randomBytesEncoded } from '#shared/crypto/random-bytes.ts';
import { randomBytesBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('random-bytes', randomBytesBody, ({ body }) => ({
  random: randomBytesEncoded(body.bytes, body.encoding),
}));
