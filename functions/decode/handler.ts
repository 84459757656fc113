import { createJsonHandler } from '#shared/http/stack.ts';
import { decodeText } from '#shared/text/decode.ts';
import { decodeBody } from '#shared/text/schemas.ts';

export const handler = createJsonHandler('decode', decodeBody, ({ body }) => ({
  encoding: body.encoding,
  result: decodeText(body.text, body.encoding),
}));
