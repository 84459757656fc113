import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export type KeyPairType = 'rsa' | 'ec' | 'ed25519' | 'x25519';
export type KeyCurve = 'P-256' | 'P-384' | 'P-521';

export interface KeyPairInput {
  type: KeyPairType;
  modulusLength: 2048 | 3072 | 4096;
  curve: KeyCurve;
  format: 'pem' | 'jwk';
}

const namedCurves: Record<KeyCurve, string> = {
  'P-256': 'prime256v1',
  'P-384': 'secp384r1',
  'P-521': 'secp521r1',
};

/**
 * A new key pair from the operating system's CSPRNG: PEM as SPKI (public) and PKCS#8 (private),
 * or both as JWK.
 */
export async function makeKeyPair(input: KeyPairInput) {
  const { publicKey, privateKey } = await newPair(input);
  const write = (key: KeyObject, pem: 'spki' | 'pkcs8') =>
    input.format === 'jwk'
      ? key.export({ format: 'jwk' })
      : (key.export({ format: 'pem', type: pem }) as string);
  return { type: input.type, publicKey: write(publicKey, 'spki'), privateKey: write(privateKey, 'pkcs8') };
}

function newPair(input: KeyPairInput) {
  switch (input.type) {
    case 'rsa':
      return generate('rsa', { modulusLength: input.modulusLength });
    case 'ec':
      return generate('ec', { namedCurve: namedCurves[input.curve] });
    case 'ed25519':
      return generate('ed25519');
    case 'x25519':
      return generate('x25519');
  }
}
