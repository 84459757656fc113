import { stat } from 'node:fs/promises';
import { ApiError } from '#shared/errors.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import type { Permissions } from '#shared/pdf/permission-schema.ts';
import { readPermissions } from '#shared/pdf/permissions.ts';
import { type QpdfOptions, runQpdf, runQpdfOrFail } from '#shared/pdf/qpdf.ts';

export interface SourceEncryption {
  /** The standard security handler's revision: 2 and 3 RC4, 4 RC4 or AES-128, 6 AES-256. */
  revision: number;
  permissions: Permissions;
}

/**
 * qpdf rewrites what it decrypts, object for object and stream for stream (their data stays as
 * stored), so its output is about the source's size; this leaves room for a rebuilt table.
 */
const decryptedBytes = (sourceBytes: number) => 2 * sourceBytes + 1024 * 1024;

/**
 * How `path` is encrypted, read by qpdf with `password` (the user or the owner password): undefined
 * when the file is not encrypted. A wrong password is 400 invalid_password, a security handler other
 * than the standard one 400 encrypted_pdf. A file qpdf cannot read at all is left to the lenient
 * reader, which repairs more and answers for what it cannot.
 */
async function readEncryption(
  path: string,
  password: string,
  options: Pick<QpdfOptions, 'deadline' | 'signal'>,
): Promise<SourceEncryption | undefined> {
  const shown = await runQpdf([`--password=${password}`, '--show-encryption', path], options);
  if (shown.exit === 2) {
    try {
      mapNativeError('qpdf', new Error(shown.stderr.trim()));
    } catch (error) {
      // A wrong password, a security handler qpdf does not know; damage is the reader's to judge.
      if (error instanceof ApiError && error.code !== 'invalid_source_file') throw error;
    }
    return undefined;
  }
  const revision = /^R = (\d+)$/m.exec(shown.stdout)?.[1];
  const p = /^P = (-?\d+)$/m.exec(shown.stdout)?.[1];
  if (revision === undefined || p === undefined) return undefined;
  return { revision: Number(revision), permissions: readPermissions(Number(revision), Number(p)) };
}

/**
 * Decrypts the PDF at `path` with `password` into `output`, when it is encrypted; returns how it
 * was encrypted, or undefined (and writes nothing) when it is not. The copy carries no /Encrypt:
 * every stream and string decrypted, the rest as qpdf keeps it.
 */
export async function decryptPdf(
  path: string,
  output: string,
  password: string,
  options: Pick<QpdfOptions, 'deadline' | 'signal'> = {},
): Promise<SourceEncryption | undefined> {
  const encryption = await readEncryption(path, password, options);
  if (!encryption) return undefined;
  const maxBytes = decryptedBytes((await stat(path)).size);
  await runQpdfOrFail([`--password=${password}`, '--decrypt', path], {
    ...options,
    output: { path: output, maxBytes },
  });
  return encryption;
}
