import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { documentFormats, documentSpecimens } from './documents.ts';
import { imageFormats, imageOriginals, imageSpecimens } from './images.ts';
import { audioFormats, ffmpegBytes, media, mediaOriginals, mediaSpecimens, videoFormats } from './media.ts';
import { officeFormats, officeSpecimens } from './office.ts';
import { pdfDocument, pdfSpecimens } from './pdf.ts';
import type { Bait, Corpus } from './specimen.ts';

/** Every input format the corpus has specimens for. */
export const corpusFormats = (): readonly string[] => [
  ...imageFormats,
  'pdf',
  ...audioFormats,
  ...videoFormats,
  ...officeFormats,
  ...documentFormats,
];

/**
 * The formats whose header bytes header-fuzz rewrites: all but office documents, a sound variant of
 * which costs a LibreOffice run of seconds each, and web pages and Markdown, which have no header
 * and each of whose variants costs a browser render; those are tested through the gateway instead
 * (test/integration/office-to-pdf.test.ts, documents-browser.test.ts), and their refusals by the
 * specimens of office.ts and documents.ts.
 */
export const headerFuzzFormats = (): readonly string[] =>
  corpusFormats().filter(
    (format) => ![...officeFormats, ...documentFormats].includes(format as (typeof officeFormats)[number]),
  );

/** The bait files, the sound original of every format, and the whole corpus, written under `dir`. */
export async function buildCorpus(
  dir: string,
  trackerUrl: string,
): Promise<{ corpus: Corpus; bait: Bait; originals: Record<string, Buffer> }> {
  await mkdir(join(dir, 'secret'), { recursive: true });
  const token = `SECRET-${randomBytes(12).toString('hex')}`;
  const bait: Bait = {
    token,
    secretText: join(dir, 'secret', 'token.txt'),
    secretPng: join(dir, 'secret', 'green.png'),
    secretAudio: join(dir, 'secret', 'tone.mp3'),
    trackerUrl,
  };
  await writeFile(bait.secretText, `${token}\n`);
  await writeFile(
    bait.secretPng,
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer(),
  );
  await writeFile(bait.secretAudio, await ffmpegBytes(dir, 'tone.mp3', media.mp3!));
  const [images, audioVideo] = await Promise.all([imageOriginals(), mediaOriginals(dir)]);
  const originals: Record<string, Buffer> = { ...images, pdf: pdfDocument(), ...audioVideo };
  const [pdf, mediaCorpus] = await Promise.all([
    pdfSpecimens(bait, originals.pdf!),
    mediaSpecimens(dir, bait, originals),
  ]);
  return {
    corpus: {
      ...imageSpecimens(bait, originals),
      pdf,
      ...mediaCorpus,
      ...officeSpecimens(),
      ...documentSpecimens(),
    },
    bait,
    originals,
  };
}
