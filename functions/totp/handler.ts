import { currentTotp } from '#shared/crypto/totp.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { totpRoute } from '#shared/routes/crypto-more.ts';

export const handler = createJsonHandler(totpRoute, ({ body }) => currentTotp(body));
