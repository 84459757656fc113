import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Text of known content for the OCR tests and benchmark, set by ImageMagick (not by the service):
 * one short paragraph per language, as a 300 dpi scan would hold it.
 */

const run = promisify(execFile);

export const sampleText = {
  eng:
    'The quick brown fox jumps over the lazy dog while the committee reviews the annual budget. Every ' +
    'contract signed this year must be scanned, stored and indexed so that its text can be searched later. ' +
    'Our office received forty invoices on Monday, and each one lists the supplier, the amount due and the ' +
    'date of payment.',
  deu:
    'Die Mitarbeiter prüfen jeden Vertrag sorgfältig, bevor er unterschrieben und im Archiv abgelegt wird. ' +
    'Große Rechnungen über fünftausend Euro müssen vom Geschäftsführer genehmigt werden. Am Freitag wurden ' +
    'zwölf Lieferscheine gescannt, damit die Buchhaltung sie schneller findet.',
} as const;

/**
 * A paragraph as a 300 dpi PNG, 11 pt DejaVu Sans, A4's text width (`convert caption:`). `noisy`:
 * turned by 1.5° and speckled with Gaussian noise, as a slightly crooked scan.
 */
export async function renderParagraph(text: string, path: string, noisy = false): Promise<void> {
  const base = ['-density', '300', '-size', '2180x', '-font', 'DejaVu-Sans', '-pointsize', '11'];
  const scan = noisy
    ? [
        '-background',
        'white',
        '-rotate',
        '1.5',
        '-attenuate',
        '1.2',
        '+noise',
        'Gaussian',
        '-colorspace',
        'Gray',
        '-depth',
        '8',
      ]
    : [];
  await run('convert', [
    ...base,
    `caption:${text}`,
    '-bordercolor',
    'white',
    '-border',
    '150',
    ...scan,
    '+repage',
    '-units',
    'PixelsPerInch',
    '-density',
    '300',
    path,
  ]);
}

const wordsOf = (text: string) =>
  text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

/**
 * Word accuracy: 1 − the word-level edit distance between what was read and the reference, over
 * the reference's words (case and punctuation ignored), as OCR evaluations count it.
 */
export function wordAccuracy(read: string, reference: string): number {
  const got = wordsOf(read);
  const want = wordsOf(reference);
  let previous = Array.from({ length: got.length + 1 }, (_, index) => index);
  for (let row = 1; row <= want.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= got.length; column += 1) {
      const same = want[row - 1] === got[column - 1] ? 0 : 1;
      current[column] = Math.min(
        previous[column]! + 1,
        current[column - 1]! + 1,
        previous[column - 1]! + same,
      );
    }
    previous = current;
  }
  return Math.max(0, 1 - previous[got.length]! / want.length);
}
