import { docsPage, docsPageEtag, docsSecurityPolicy } from '#functions/docs/page.ts';
import { createGetHandler } from '#shared/http/stack.ts';
import { docsRoute } from '#shared/routes/system.ts';

/** True when the caller's `If-None-Match` names the page it is about to get. */
function alreadyHeld(headers: Record<string, string | undefined> | null): boolean | undefined {
  const value = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'if-none-match')?.[1];
  return value?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === docsPageEtag);
}

export const handler = createGetHandler(docsRoute, () => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': docsSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    // Kept five minutes, then revalidated: an unchanged page costs a 304 without a body.
    'Cache-Control': 'public, max-age=300',
    ETag: docsPageEtag,
  },
  body: docsPage,
})).use({
  after: (request) => {
    const response = request.response;
    if (response?.statusCode !== 200 || !alreadyHeld(request.event.headers)) return;
    request.response = { ...response, statusCode: 304, body: '' };
  },
});
