import { createPublicKey } from 'node:crypto';
import { URI } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { decryptText } from '#shared/crypto/decrypt.ts';
import { verifyJwt } from '#shared/crypto/jwt-verify.ts';
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
  '/jwt-sign': async (request, example) => {
    const issuedAt = new Date('2026-11-28T12:00:00Z');
    const verdict = await verifyJwt({
      token: example.token as string,
      secret: request.secret as string,
      now: issuedAt,
    });
    expect(verdict).toEqual({
      valid: true,
      payload: {
        ...(request.payload as object),
        iat: issuedAt.getTime() / 1000,
        exp: issuedAt.getTime() / 1000 + 3600,
      },
    });
  },
  '/keypair': async (request, example) => {
    expect(example.type).toBe(request.type);
    const derived = createPublicKey(example.privateKey as string).export({ format: 'pem', type: 'spki' });
    expect(derived).toBe(example.publicKey);
  },
  '/totp': async (request, example) => {
    const totp = URI.parse(example.otpauthUrl as string);
    expect(totp.secret.base32).toBe(request.secret);
    // The documented code is the one of the period that has `remainingSeconds` left at its time.
    expect(
      totp.validate({
        token: example.code as string,
        timestamp: Date.parse('2026-11-28T12:00:19Z'),
        window: 0,
      }),
    ).toBe(0);
  },
  '/totp-verify': async (_request, example) => {
    expect(example).toEqual({ valid: false });
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
