import { jsonResponse } from '#shared/http/respond.ts';
import { createGetHandler } from '#shared/http/stack.ts';
import { formatCatalogue } from '#shared/routes/catalogue.ts';
import { formatsRoute } from '#shared/routes/system.ts';
import { routes } from '#shared/routes.ts';
import { formatAliases } from '#shared/source/formats.ts';

const body = { categories: formatCatalogue(routes), aliases: formatAliases };

export const handler = createGetHandler(formatsRoute, () =>
  jsonResponse(200, body, { 'Cache-Control': 'public, max-age=3600' }),
);
