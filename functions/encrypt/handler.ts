import { encryptText } from '#shared/crypto/encrypt.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { encryptRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(encryptRoute, async ({ body }) => ({
  ciphertext: await encryptText(body.text, body.passphrase),
}));
