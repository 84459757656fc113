import { encryptText } from '#shared/crypto/encrypt.ts';
import { encryptBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('encrypt', encryptBody, async ({ body }) => ({
  ciphertext: await encryptText(body.text, body.passphrase),
}));
