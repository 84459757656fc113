import { randomInt } from 'node:crypto';

export const characterClasses = {
  uppercase: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  lowercase: 'abcdefghijklmnopqrstuvwxyz',
  digits: '0123456789',
  // No quotes, backslash, backtick or space: the password survives shells, JSON and config files.
  symbols: '!#$%&()*+,-./:;<=>?@[]^_{|}~',
} as const;

export type CharacterClass = keyof typeof characterClasses;

/**
 * A password of `length` characters drawn uniformly (crypto.randomInt rejects out-of-range draws,
 * so there is no modulo bias) from the enabled classes. Drafts that lack an enabled class are
 * discarded and drawn again, which keeps every valid password equally likely.
 */
export function generatePassword(length: number, classes: readonly CharacterClass[]): string {
  if (classes.length === 0 || length < classes.length) throw new RangeError('no password fits these rules');
  const alphabet = classes.map((name) => characterClasses[name]).join('');
  for (;;) {
    let password = '';
    for (let i = 0; i < length; i += 1) password += alphabet[randomInt(alphabet.length)];
    if (classes.every((name) => hasCharacterOf(password, characterClasses[name]))) return password;
  }
}

const hasCharacterOf = (password: string, characters: string) =>
  [...password].some((c) => characters.includes(c));
