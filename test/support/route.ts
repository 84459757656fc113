import type * as z from 'zod';
import { bufferedSizing, streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds } from '#shared/routes/types.ts';

/** A row for a handler that only a test serves: a JSON route, or a file route with async jobs. */
export function testRoute<S extends z.ZodType>(name: string, body: S, kind: 'json' | 'file' = 'json') {
  return defineRoute({
    method: 'POST',
    path: `/${name}`,
    function: name,
    kind,
    sizing: kind === 'file' ? streamedSizing(256, 60, 0) : bufferedSizing(256, false),
    ...(kind === 'file' ? { tierNeeds: fileRouteNeeds, jobStore: 'run' as const } : {}),
    tag: 'Text',
    summary: `The test route ${name}`,
    body,
    errors: [],
  });
}
