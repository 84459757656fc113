import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildChromiumLayer, localChromium } from '../../layers/chromium/build.ts';
import { buildFontsLayer } from '../../layers/fonts/build.ts';

/**
 * The packed Chromium unpacked once on this machine, and the fonts layer (both built by `npm test`
 * before the tests, and only checked here): each gateway worker has a /tmp of its own and would
 * otherwise unpack its own copy (about a second on Lambda, several on a busy test machine).
 */
export function browserLayers(): string {
  buildFontsLayer();
  buildChromiumLayer();
  return localChromium();
}

/** Runs a poppler tool on PDF bytes and returns what it prints. */
export function poppler(tool: 'pdftotext' | 'pdfinfo' | 'pdffonts' | 'pdfimages', pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'poppler-'));
  try {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    const args = tool === 'pdftotext' ? [file, '-'] : tool === 'pdfimages' ? ['-list', file] : [file];
    return execFileSync(tool, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The first page's size in points, as pdfinfo reads it. */
export function pageSizeOf(pdf: Buffer): { width: number; height: number } {
  const found = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(poppler('pdfinfo', pdf));
  if (!found) throw new Error('pdfinfo printed no page size');
  return { width: Number(found[1]), height: Number(found[2]) };
}

/** The images pdfimages lists: one row per image drawn. */
export function imageCountOf(pdf: Buffer): number {
  return poppler('pdfimages', pdf)
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '').length;
}

/** Every font pdffonts lists, with whether it is embedded. */
export function fontsOf(pdf: Buffer): Array<{ name: string; embedded: boolean }> {
  return poppler('pdffonts', pdf)
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const columns = line.trim().split(/\s+/);
      // name, type (one or two words), encoding, emb, sub, uni, object, generation: count from the end.
      return { name: columns[0] ?? '', embedded: columns.at(-5) === 'yes' };
    });
}

/** A small PNG made by ImageMagick: a solid square of the colour given. */
export function pngSquare(colour: string, size = 40): Buffer {
  return execFileSync('convert', ['-size', `${size}x${size}`, `xc:${colour}`, 'png:-']);
}
