import { createJsonHandler } from '#shared/http/stack.ts';
import { encodeText } from '#shared/text/encode.ts';
import { encodeBody } from '#shared/text/schemas.ts';

export const handler = createJsonHandler('encode', encodeBody, ({ body }) => ({
  encoding: body.encoding,
  result: encodeText(body.text, body.encoding),
}));
