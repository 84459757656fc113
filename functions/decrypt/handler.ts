import { decryptText } from '#shared/crypto/decrypt.ts';
import { decryptBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('decrypt', decryptBody, async ({ body }) => ({
  text: await decryptText(body.ciphertext, body.passphrase),
}));
