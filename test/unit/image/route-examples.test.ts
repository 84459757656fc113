import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { imageRoutes } from '#shared/routes/image.ts';

const docs = readFileSync('docs/image.md', 'utf8');

/** The JSON bodies of the docs' curl commands to one route. */
function curlBodies(path: string): unknown[] {
  const commands = docs.split('```sh').filter((block) => block.includes(`127.0.0.1:3000${path} `));
  return commands.flatMap((block) => {
    const body = /-d '([^']*)'/.exec(block)?.[1];
    return body === undefined ? [] : [JSON.parse(body)];
  });
}

describe('the image routes’ examples', () => {
  it.each(imageRoutes.map((route) => [route.path, route] as const))(
    '%s: every option appears in at least one example, each shown as a curl command in docs/image.md',
    (path, route) => {
      const shape = route.body instanceof z.ZodObject ? route.body.shape : undefined;
      expect(shape, 'a body schema with named fields').toBeDefined();
      const bodies = [route.example, ...Object.values(route.moreExamples ?? {}).map((named) => named.body)];
      const shown = new Set(bodies.flatMap((body) => Object.keys(body ?? {})));
      expect(Object.keys(shape ?? {}).filter((option) => !shown.has(option))).toEqual([]);
      const documented = curlBodies(path);
      for (const body of bodies) expect(documented).toContainEqual(body);
    },
  );
});
