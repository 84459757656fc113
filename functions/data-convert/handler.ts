import { convertData } from '#shared/data/convert.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { dataConvertRoute } from '#shared/routes/data.ts';

export const handler = createJsonHandler(dataConvertRoute, ({ body }) => ({ result: convertData(body) }));
