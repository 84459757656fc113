import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeProfile } from '#shared/documents/office-profile.ts';

const run = promisify(execFile);

/**
 * A legacy Office file (xls, doc) written by Debian's LibreOffice from `text` (CSV for a workbook,
 * plain text for a document), for tests that need a real one: no library of this project writes
 * the binary Office formats. One `soffice --convert-to` run, in a folder of its own under `dir`,
 * with a fresh profile that skips the after-upgrade self-test (office-profile.ts).
 */
export async function writtenByLibreOffice(
  text: string,
  as: { extension: 'xls' | 'doc'; filter: string; sourceExtension: 'csv' | 'txt' },
  dir: string,
): Promise<Buffer> {
  const work = await mkdtemp(join(dir, 'libreoffice-'));
  try {
    const source = join(work, `source.${as.sourceExtension}`);
    await writeFile(source, text);
    const profile = await writeProfile(join(work, 'profile'));
    await run(
      'soffice',
      [
        `-env:UserInstallation=${profile}`,
        '--headless',
        '--norestore',
        '--convert-to',
        `${as.extension}:${as.filter}`,
        '--outdir',
        work,
        source,
      ],
      { env: { ...process.env, HOME: work }, timeout: 120_000 },
    );
    return await readFile(join(work, `source.${as.extension}`));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
