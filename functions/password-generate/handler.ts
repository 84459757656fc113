import { type CharacterClass, generatePassword } from '#shared/crypto/password-generate.ts';
import { passwordGenerateBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

const classNames: readonly CharacterClass[] = ['uppercase', 'lowercase', 'digits', 'symbols'];

export const handler = createJsonHandler('password-generate', passwordGenerateBody, ({ body }) => ({
  password: generatePassword(
    body.length,
    classNames.filter((name) => body[name]),
  ),
}));
