import { writeFile } from 'node:fs/promises';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';

/**
 * Writes a decrypted PDF (the route's source, decrypted with its password where it is opened:
 * shared/pdf/sources.ts) as every output is written, with no /Encrypt and no active content.
 * A source that was not encrypted comes out the same way.
 */
export async function unlockPdf(sourcePath: string, outputPath: string): Promise<void> {
  const opened = await openPdfFile(sourcePath);
  pagesOf(opened);
  await writeFile(outputPath, await savePdf(opened.doc));
}
