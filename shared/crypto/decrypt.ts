import { deriveKey, open, parseEnvelope } from '#shared/crypto/envelope.ts';
import { ApiError } from '#shared/errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of an /encrypt ciphertext; wrong passphrase or changed bytes → 400 decrypt_failed. */
export async function decryptText(ciphertext: string, passphrase: string): Promise<string> {
  const envelope = parseEnvelope(ciphertext);
  const key = await deriveKey(passphrase, envelope.salt);
  const plaintext = open(key, envelope);
  try {
    return strictUtf8.decode(plaintext);
  } catch (error) {
    throw new ApiError('decrypt_failed', 'The decrypted bytes are not UTF-8 text.', { cause: error });
  }
}
