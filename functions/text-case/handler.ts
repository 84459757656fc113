import { createJsonHandler } from '#shared/http/stack.ts';
import { textCaseRoute } from '#shared/routes/text.ts';
import { changeCase } from '#shared/text/text-case.ts';

export const handler = createJsonHandler(textCaseRoute, ({ body }) => ({
  case: body.case,
  result: changeCase(body.text, body.case),
}));
