import { formatAliases, formatCatalogue } from '#shared/formats.ts';
import { jsonResponse } from '#shared/http/respond.ts';
import { createGetHandler } from '#shared/http/stack.ts';

const body = { categories: formatCatalogue, aliases: formatAliases };

export const handler = createGetHandler('formats', () =>
  jsonResponse(200, body, { 'Cache-Control': 'public, max-age=3600' }),
);
