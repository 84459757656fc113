import { createJsonHandler } from '#shared/http/stack.ts';
import { hashRoute } from '#shared/routes/text.ts';
import { hashText } from '#shared/text/hash.ts';

export const handler = createJsonHandler(hashRoute, ({ body }) => ({
  algorithm: body.algorithm,
  encoding: body.encoding,
  hash: hashText(body.text, body.algorithm, body.encoding),
}));
