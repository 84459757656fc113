import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { decryptPdf } from '#shared/pdf/decrypt.ts';
import { readPdfInfo } from '#shared/pdf/info.ts';
import { openPdfFile } from '#shared/pdf/open.ts';
import { qpdfPermissionOptions, readPermissions } from '#shared/pdf/permissions.ts';
import { protectPdf } from '#shared/pdf/protect.ts';
import { runQpdf } from '#shared/pdf/qpdf.ts';
import {
  type EncryptedPdfs,
  makeEncryptedPdfs,
  ownerPassword,
  requiresPassword,
  showEncryption,
  userPassword,
} from '../../support/encrypted-pdfs.ts';

/**
 * The qpdf module (shared/pdf/qpdf.ts) and the work built on it: decryption of files encrypted by
 * Debian's qpdf, AES-256 protection read back by Debian's qpdf, the permissions' bits, the bounds
 * and the error table's qpdf entries.
 */
const run = promisify(execFile);
let dir = '';
let pdfs: EncryptedPdfs;
let count = 0;
const out = () => {
  count += 1;
  return join(dir, `out-${count}.pdf`);
};

async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const pdftotext = async (path: string) => (await run('pdftotext', [path, '-'])).stdout;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qpdf-unit-'));
  pdfs = await makeEncryptedPdfs(dir);
}, 30_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('decryptPdf', () => {
  it.each([
    ['RC4-128', 'rc4', 3],
    ['AES-128', 'aes128', 4],
    ['AES-256', 'aes256', 6],
  ] as const)('decrypts %s with the user or the owner password', async (_name, key, revision) => {
    for (const password of [userPassword, ownerPassword]) {
      const output = out();
      const encryption = await decryptPdf(pdfs[key], output, password);
      expect(encryption?.revision).toBe(revision);
      expect(await requiresPassword(output)).toBe(2);
      expect(await pdftotext(output)).toContain('Secret page 3');
    }
  });

  it('answers invalid_password for a wrong password, also where the user password is empty', async () => {
    for (const path of [pdfs.aes256, pdfs.rc4, pdfs.ownerOnly]) {
      const error = await apiErrorOf(decryptPdf(path, out(), 'wrong'));
      expect(error.code).toBe('invalid_password');
      expect(error.message).not.toContain(dir);
    }
  });

  it('leaves a file that is not encrypted alone, whatever the password', async () => {
    const output = out();
    expect(await decryptPdf(pdfs.plain, output, 'anything')).toBeUndefined();
    await expect(stat(output)).rejects.toThrow();
  });

  it('reads the permissions of the source', async () => {
    const encryption = await decryptPdf(pdfs.ownerOnly, out(), ownerPassword);
    expect(encryption?.permissions).toEqual({
      print: false,
      copy: false,
      modify: true,
      annotate: true,
      fillForms: true,
    });
  });

  it('cuts off an output past its bound and removes it', async () => {
    const output = out();
    const error = await apiErrorOf(
      runQpdf([`--password=${userPassword}`, '--decrypt', pdfs.aes256], {
        output: { path: output, maxBytes: 100 },
      }),
    );
    expect(error.code).toBe('invalid_source_file');
    await expect(stat(output)).rejects.toThrow();
  });

  it('refuses a line break in an argument (arguments travel one a line)', async () => {
    await expect(runQpdf(['--password=a\nb', '--check', pdfs.plain])).rejects.toThrow(/line break/);
  });
});

describe('protectPdf', () => {
  it('writes AES-256 (R6) with the user password and the permissions asked', async () => {
    const output = out();
    await protectPdf(pdfs.plain, out(), output, {
      ownerPassword: 'own',
      userPassword: 'usr',
      permissions: { print: false, copy: false, modify: true, annotate: false, fillForms: true },
    });
    expect(await requiresPassword(output)).toBe(0);
    const shown = await showEncryption(output, 'usr');
    expect(shown).toMatch(/^R = 6$/m);
    expect(shown).toContain('file encryption method: AESv3');
    expect(shown).toContain('print high resolution: not allowed');
    expect(shown).toContain('extract for any purpose: not allowed');
    expect(shown).toContain('modify annotations: not allowed');
    expect(shown).toContain('modify forms: allowed');
    expect(shown).toContain('modify other: allowed');
    expect(await showEncryption(output, 'own')).toContain('Supplied password is owner password');
    const info = await readPdfInfo(output, 0);
    expect(info.permissions).toEqual({
      print: false,
      copy: false,
      modify: true,
      annotate: false,
      fillForms: true,
    });
  });

  it('without a user password the file opens without one; every permission by default', async () => {
    const output = out();
    const all = { print: true, copy: true, modify: true, annotate: true, fillForms: true };
    await protectPdf(pdfs.plain, out(), output, { ownerPassword: 'own', permissions: all });
    expect(await requiresPassword(output)).toBe(3);
    const shown = await showEncryption(output);
    expect(shown).toMatch(/^R = 6$/m);
    expect(shown).toContain('modify anything: allowed');
    expect(shown).toContain('print high resolution: allowed');
  });

  it('refuses an encrypted source (it is decrypted first, where it is opened)', async () => {
    const error = await apiErrorOf(
      protectPdf(pdfs.aes256, out(), out(), {
        ownerPassword: 'x',
        permissions: { print: true, copy: true, modify: true, annotate: true, fillForms: true },
      }),
    );
    expect(error.code).toBe('encrypted_pdf');
  });
});

describe('permissions', () => {
  it('reads the bits of /P as the standard numbers them, bit 9 from revision 3', () => {
    // -4: every bit but 1 and 2. -44 clears bits 4 and 6 (8 + 32); -260 clears bit 9.
    expect(readPermissions(6, -4)).toEqual({
      print: true,
      copy: true,
      modify: true,
      annotate: true,
      fillForms: true,
    });
    expect(readPermissions(6, -44)).toMatchObject({ modify: false, annotate: false, fillForms: true });
    expect(readPermissions(4, -260)).toMatchObject({ annotate: true, fillForms: false });
    expect(readPermissions(2, -260)).toMatchObject({ annotate: true, fillForms: true });
  });

  it('turns each permission asked into qpdf options', () => {
    expect(
      qpdfPermissionOptions({ print: false, copy: true, modify: false, annotate: true, fillForms: false }),
    ).toEqual([
      '--print=none',
      '--modify-other=n',
      '--assemble=n',
      '--extract=y',
      '--annotate=y',
      '--form=n',
    ]);
  });
});

describe('qpdf failures in the native error table', () => {
  const mapped = (message: string) => {
    try {
      mapNativeError('qpdf', new Error(message));
    } catch (thrown) {
      return thrown;
    }
  };

  it.each([
    ['qpdf: /tmp/fca-1/source-0: invalid password', 'invalid_password'],
    ['qpdf: source-0: encryption dictionary: unsupported encryption filter', 'encrypted_pdf'],
    [
      'qpdf: source-0: unable to find trailer dictionary while recovering damaged file',
      'invalid_source_file',
    ],
  ])('%s → %s', (message, code) => {
    const error = mapped(message);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(code);
  });

  it('keeps an unknown failure internal', () => {
    expect(mapped('qpdf: something new')).not.toBeInstanceOf(ApiError);
  });

  it('answers a security handler other than the standard one as encrypted_pdf', async () => {
    const bytes = (await readFile(pdfs.aes128))
      .toString('latin1')
      .replace('/Filter /Standard', '/Filter /Foreign_');
    const foreign = join(dir, 'foreign.pdf');
    await writeFile(foreign, Buffer.from(bytes, 'latin1'));
    await expect(openPdfFile(foreign)).rejects.toThrow(ApiError);
    const error = await apiErrorOf(decryptPdf(foreign, out(), 'x'));
    expect(error.code).toBe('encrypted_pdf');
  });
});
