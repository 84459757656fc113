/**
 * One operation in a fresh Node process, for the memory-ops section: it prints the process's
 * own peak resident set (getrusage's maxrss, exact, not sampled) as JSON on its last line.
 *
 *   node scripts/bench/memory-child.ts node                      # Node alone: the floor
 *   node scripts/bench/memory-child.ts sharp-webp in.jpg out.webp
 *   node scripts/bench/memory-child.ts pdf-lib-load in.pdf       # pdf-lib's object model alone
 *   node scripts/bench/memory-child.ts split in.pdf [ranges]     # the route's splitPdf, no gateway
 *
 * Engines are imported by the mode that needs them only, so each figure holds what it names.
 */
import { readFile } from 'node:fs/promises';

const [mode, input = '', extra] = process.argv.slice(2);

switch (mode) {
  case 'node':
    break;
  case 'sharp-webp': {
    const { default: sharp } = await import('sharp');
    // The route's WebP settings for an image above 4 MP (shared/image/encode.ts).
    await sharp(input)
      .autoOrient()
      .webp({ quality: 85, lossless: false, smartSubsample: false, effort: 3 })
      .toFile(extra ?? `${input}.webp`);
    break;
  }
  case 'pdf-lib-load': {
    const { PDFDocument } = await import('pdf-lib');
    const doc = await PDFDocument.load(await readFile(input));
    if (doc.getPageCount() < 1) throw new Error('no pages');
    break;
  }
  case 'split': {
    const { splitPdf } = await import('#shared/pdf/split.ts');
    const { parseRangeSpec } = await import('#shared/pdf/ranges.ts');
    const { Workspace } = await import('#shared/workspace.ts');
    const workspace = new Workspace();
    try {
      await splitPdf(input, {
        ranges: extra ? parseRangeSpec(extra, 'ranges') : undefined,
        baseName: 'book',
        workspace,
      });
    } finally {
      await workspace.dispose();
    }
    break;
  }
  default:
    throw new Error(`unknown mode ${mode}`);
}

process.stdout.write(`${JSON.stringify({ maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`);
