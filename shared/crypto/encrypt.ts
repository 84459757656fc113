import { deriveKey, newSalt, seal } from '#shared/crypto/envelope.ts';

/** Text sealed under a passphrase, as one self-describing base64url string (see envelope.ts). */
export async function encryptText(text: string, passphrase: string): Promise<string> {
  const salt = newSalt();
  const key = await deriveKey(passphrase, salt);
  return seal(key, salt, Buffer.from(text, 'utf8'));
}
