import { docsPage, docsSecurityPolicy } from '#functions/docs/page.ts';
import { createGetHandler } from '#shared/http/stack.ts';

export const handler = createGetHandler('docs', () => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': docsSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'public, max-age=300',
  },
  body: docsPage,
}));
