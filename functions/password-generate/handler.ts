import { type CharacterClass, generatePassword } from '#shared/crypto/password-generate.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { passwordGenerateRoute } from '#shared/routes/crypto.ts';

const classNames: readonly CharacterClass[] = ['uppercase', 'lowercase', 'digits', 'symbols'];

export const handler = createJsonHandler(passwordGenerateRoute, ({ body }) => ({
  password: generatePassword(
    body.length,
    classNames.filter((name) => body[name]),
  ),
}));
