import { createJsonHandler } from '#shared/http/stack.ts';
import { textCaseBody } from '#shared/text/schemas.ts';
import { changeCase } from '#shared/text/text-case.ts';

export const handler = createJsonHandler('text-case', textCaseBody, ({ body }) => ({
  case: body.case,
  result: changeCase(body.text, body.case),
}));
