import { makeKeyPair } from '#shared/crypto/keypair.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { keypairRoute } from '#shared/routes/crypto-more.ts';

export const handler = createJsonHandler(keypairRoute, ({ body }) =>
  makeKeyPair({ ...body, modulusLength: body.modulusLength ?? 2048, curve: body.curve ?? 'P-256' }),
);
