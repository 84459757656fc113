import { decryptText } from '#shared/crypto/decrypt.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { decryptRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(decryptRoute, async ({ body }) => ({
  text: await decryptText(body.ciphertext, body.passphrase),
}));
