import type { RouteSpec } from '#shared/routes/types.ts';
import { slugifyBody, slugifyResult } from '#shared/text/schemas.ts';

export const textRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/slugify',
    function: 'slugify',
    kind: 'json',
    tag: 'Text',
    summary: 'Turn text into a URL slug',
    description: 'Unicode is folded to ASCII (German, French, Nordic, Cyrillic and more).',
    body: slugifyBody,
    response: slugifyResult,
    example: { text: 'Héllo Wörld!' },
    errors: [],
  },
];
