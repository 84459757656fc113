import { stat, writeFile } from 'node:fs/promises';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import type { Permissions } from '#shared/pdf/permission-schema.ts';
import { qpdfPermissionOptions } from '#shared/pdf/permissions.ts';
import { type QpdfOptions, runQpdfOrFail } from '#shared/pdf/qpdf.ts';

export interface ProtectOptions {
  ownerPassword: string;
  /** Undefined: the file opens without a password, under `permissions`. */
  userPassword?: string | undefined;
  permissions: Permissions;
}

/**
 * Encryption adds a few bytes to every string and stream (an AES block and its initialisation
 * vector) and an /Encrypt dictionary; qpdf's output stays within this of the clean copy.
 */
const encryptedBytes = (cleanBytes: number) => 2 * cleanBytes + 1024 * 1024;

/**
 * Writes the PDF at `sourcePath`, encrypted with AES-256 (PDF 2.0, security handler revision 6)
 * under the passwords and permissions asked, to `outputPath`. The document is first read and
 * written like every output (active content removed) into `cleanPath`, then qpdf encrypts that copy:
 * the cipher and the key derivation are qpdf's.
 */
export async function protectPdf(
  sourcePath: string,
  cleanPath: string,
  outputPath: string,
  options: ProtectOptions,
  run: Pick<QpdfOptions, 'deadline' | 'signal'> = {},
): Promise<void> {
  const opened = await openPdfFile(sourcePath);
  pagesOf(opened);
  await writeFile(cleanPath, await savePdf(opened.doc));
  const maxBytes = encryptedBytes((await stat(cleanPath)).size);
  await runQpdfOrFail(
    [
      cleanPath,
      '--encrypt',
      options.userPassword ?? '',
      options.ownerPassword,
      '256',
      ...qpdfPermissionOptions(options.permissions),
      '--',
    ],
    { ...run, output: { path: outputPath, maxBytes } },
  );
}
