import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { referenceQpdf } from './reference-tools.ts';

/**
 * Encrypted PDFs made by other tools than the service: a three-page PDF written by Ghostscript,
 * encrypted by Debian's qpdf with RC4-128 (revision 3), AES-128 (revision 4) and AES-256 (revision
 * 6), each with the user password `user-pw` and the owner password `owner-pw`, and an AES-128 file
 * with an owner password only, that denies printing and copying.
 */
const run = promisify(execFile);

export const userPassword = 'user-pw';
export const ownerPassword = 'owner-pw';

export interface EncryptedPdfs {
  plain: string;
  rc4: string;
  aes128: string;
  aes256: string;
  ownerOnly: string;
}

const postScript = [1, 2, 3]
  .map(
    (page) =>
      `<< /PageSize [298 420] >> setpagedevice /Helvetica findfont 24 scalefont setfont 40 200 moveto (Secret page ${page}) show showpage`,
  )
  .join('\n');

export async function makeEncryptedPdfs(dir: string): Promise<EncryptedPdfs> {
  const file = (name: string) => join(dir, name);
  const ps = file('pages.ps');
  await writeFile(ps, postScript);
  const plain = file('plain.pdf');
  await run('gs', [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    '-sDEVICE=pdfwrite',
    `-sOutputFile=${plain}`,
    ps,
  ]);
  const encrypt = async (name: string, options: string[], weak = false) => {
    const out = file(name);
    await run(referenceQpdf, [
      ...(weak ? ['--allow-weak-crypto'] : []),
      plain,
      '--encrypt',
      ...options,
      '--',
      out,
    ]);
    return out;
  };
  return {
    plain,
    rc4: await encrypt('rc4.pdf', [userPassword, ownerPassword, '128', '--use-aes=n'], true),
    aes128: await encrypt('aes128.pdf', [userPassword, ownerPassword, '128', '--use-aes=y']),
    aes256: await encrypt('aes256.pdf', [userPassword, ownerPassword, '256']),
    ownerOnly: await encrypt('owner-only.pdf', [
      '',
      ownerPassword,
      '128',
      '--use-aes=y',
      '--print=none',
      '--extract=n',
    ]),
  };
}

/** What Debian's qpdf says of a file's encryption (`--show-encryption`), opened with `password`. */
export async function showEncryption(path: string, password = ''): Promise<string> {
  return (await run(referenceQpdf, [`--password=${password}`, '--show-encryption', path])).stdout;
}

/** `qpdf --requires-password`: 0 a password is needed, 2 not encrypted, 3 encrypted but opens without one. */
export async function requiresPassword(path: string): Promise<number> {
  try {
    await run(referenceQpdf, ['--requires-password', path]);
    return 0;
  } catch (error) {
    return (error as { code: number }).code;
  }
}
