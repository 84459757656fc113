import { createJsonHandler } from '#shared/http/stack.ts';
import { hashText } from '#shared/text/hash.ts';
import { hashBody } from '#shared/text/schemas.ts';

export const handler = createJsonHandler('hash', hashBody, ({ body }) => ({
  algorithm: body.algorithm,
  encoding: body.encoding,
  hash: hashText(body.text, body.algorithm, body.encoding),
}));
