import { describe, expect, it } from 'vitest';
import { decryptText } from '#shared/crypto/decrypt.ts';
import { verifyPassword } from '#shared/crypto/password-verify.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import type { RouteSpec } from '#shared/routes/types.ts';
import { routes } from '#shared/routes.ts';
import { apiEvent, call } from '../../support/lambda.ts';

/**
 * Routes whose answer to the same request differs each time. Their documented answer must still be
 * one the route could give for its request example, which these checks hold it to.
 */
const random: Record<
  string,
  (request: Record<string, unknown>, example: Record<string, unknown>) => Promise<void>
> = {
  '/uuid': async (request, example) => {
    const uuids = example.uuids as string[];
    expect(uuids).toHaveLength(request.count as number);
    expect(uuids.map((uuid) => uuid[14])).toEqual(uuids.map(() => String(request.version)));
    // Version 7 sorts in creation order.
    expect(uuids.toSorted()).toEqual(uuids);
  },
  '/random-bytes': async (request, example) => {
    expect(example.random).toMatch(new RegExp(`^[0-9a-f]{${2 * (request.bytes as number)}}$`));
  },
  '/password-generate': async (request, example) => {
    const password = example.password as string;
    expect(password).toHaveLength(request.length as number);
    expect(password).toMatch(request.symbols === false ? /^[A-Za-z0-9]+$/ : /./);
  },
  '/password-hash': async (request, example) => {
    expect(example.algorithm).toBe(request.algorithm);
    expect(await verifyPassword(request.password as string, example.hash as string)).toBe(true);
  },
  '/encrypt': async (request, example) => {
    expect(await decryptText(example.ciphertext as string, request.passphrase as string)).toBe(request.text);
  },
};

/** Routes whose example reads a public file, which tests cannot reach; the schema still holds. */
const remote = new Set(['/checksum']);

const withResponseExample = routes.filter((route) => route.responseExample !== undefined);

const handlerOf = async (route: RouteSpec) =>
  ((await import(`../../../functions/${route.function}/handler.ts`)) as { handler: unknown }).handler;

describe('response examples of the route table', () => {
  it('are there for every text and crypto route', () => {
    const missing = routes
      .filter((route) => (route.tag === 'Text' || route.tag === 'Crypto') && !route.responseExample)
      .map((route) => route.path);
    expect(missing).toEqual([]);
  });

  it.each(withResponseExample.map((route) => [route.path, route] as const))(
    '%s: the documented answer is what its request example gets',
    async (path, route) => {
      const example = route.responseExample!;
      expect(route.response?.safeParse(example).error?.issues ?? []).toEqual([]);
      if (remote.has(path)) {
        expect(example).toMatchObject({ algorithm: route.example?.algorithm });
        return;
      }
      const answer = await call(await handlerOf(route), apiEvent(route.example));
      expect(answer.statusCode).toBe(200);
      const body = answer.json();
      const checkRandom = random[path];
      if (checkRandom) {
        expect(route.response?.safeParse(body).success).toBe(true);
        expect(Object.keys(body as object).sort()).toEqual(Object.keys(example).sort());
        await checkRandom(route.example!, example);
      } else {
        expect(body).toEqual(example);
      }
    },
  );

  it('are the 200 examples of openapi.yaml', () => {
    const document = buildOpenApiDocument(routes, { version: '1', license: 'UNLICENSED' });
    for (const route of withResponseExample) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()] as {
        responses: Record<string, { content: Record<string, { example?: unknown }> }>;
      };
      expect(operation.responses['200']?.content['application/json']?.example, route.path).toEqual(
        route.responseExample,
      );
    }
  });
});
