import type { AnySchema } from 'ajv';
import { validateJson } from '#shared/data/json-validate.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { jsonValidateRoute } from '#shared/routes/data.ts';

export const handler = createJsonHandler(jsonValidateRoute, ({ body }) =>
  validateJson(body.data, body.schema as AnySchema),
);
