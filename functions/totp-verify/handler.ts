import { verifyTotp } from '#shared/crypto/totp.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { totpVerifyRoute } from '#shared/routes/crypto-more.ts';

export const handler = createJsonHandler(totpVerifyRoute, ({ body }) => verifyTotp(body));
