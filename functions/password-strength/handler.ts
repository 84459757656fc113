import { passwordStrength } from '#shared/crypto/password-strength.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { passwordStrengthRoute } from '#shared/routes/crypto-more.ts';

export const handler = createJsonHandler(passwordStrengthRoute, ({ body }) =>
  passwordStrength(body.password, body.userInputs),
);
