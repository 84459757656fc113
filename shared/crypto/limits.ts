/** The options of the crypto routes, which their schemas and the route table read. */

export const hmacAlgorithms = ['sha256', 'sha1', 'sha384', 'sha512'] as const;
export const randomEncodings = ['hex', 'base64', 'base64url'] as const;
export const passwordHashAlgorithms = ['argon2id', 'bcrypt', 'scrypt'] as const;
