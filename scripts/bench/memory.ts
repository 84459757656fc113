import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ffmpegPath } from '#shared/media/binaries.ts';
import { type BenchContext, sizeOf, workFile } from './context.ts';
import { writeCameraClip, writeLooped, writePhoto, writeReport } from './inputs.ts';
import { formatBytes, formatMs, timed } from './measure.ts';
import { runTool, watchPeak } from './processes.ts';
import { notInstalled, type SectionResult } from './report.ts';
import { post } from './service.ts';

/**
 * Peak memory per operation on large inputs: the gateway process (its high-water mark restarted
 * before each request) and the ffmpeg it starts, against the bare engine or the alternative tool
 * in a process of its own.
 */

const MB = 1_000_000;

interface Measured {
  ms: number;
  /** Resident set before the request (service) or 0 (a process of its own). */
  baseline: number;
  peak: number;
  childPeak?: number;
}

export async function benchMemory(context: BenchContext): Promise<SectionResult> {
  const { imagemagick, qpdf, pdftoppm, ghostscript } = context.tools;
  const file = (name: string) => workFile(context, name);
  const rows: string[][] = [];
  const watcher = watchPeak(context.service.pid);

  const viaService = async (route: string, body: Record<string, unknown>): Promise<Measured> => {
    const baseline = await watcher.reset();
    const { ms } = await timed(() => post(context.service.url, route, body));
    const peak = await watcher.stop();
    return { ms, baseline, peak: peak.ownBytes, childPeak: peak.childBytes };
  };
  const viaTool = async (command: string, args: string[]): Promise<Measured> => {
    const run = await runTool(command, args, { cwd: context.rootDir });
    return { ms: run.ms, baseline: 0, peak: run.peakBytes };
  };
  const row = (input: string, operation: string, contender: string, measured: Measured) => [
    input,
    operation,
    contender,
    formatMs(measured.ms),
    measured.baseline > 0
      ? `${formatBytes(measured.peak)} (+${formatBytes(Math.max(0, measured.peak - measured.baseline))})`
      : formatBytes(measured.peak),
    measured.childPeak ? formatBytes(measured.childPeak) : '—',
  ];
  const missing = (input: string, operation: string, tool: string) =>
    notInstalled([input, operation, tool], 6);

  // A 50 MP photo.
  const photo = file('photo-50mp.jpg');
  // Smoother than the 12 MP photo, so that three WebP encodes of 50 MP fit the run's time.
  await writePhoto(photo, 8660, 5774, 4);
  const photoLabel = `50 MP JPEG (${formatBytes(await sizeOf(photo))})`;
  const photoUrl = context.sources.add(photo);
  rows.push(
    row(
      photoLabel,
      '→ WebP',
      'service',
      await viaService('/image-convert', { sourceUrl: photoUrl, outputFormat: 'webp' }),
    ),
    row(
      photoLabel,
      '→ WebP',
      'sharp in a fresh Node process',
      await viaTool(process.execPath, [
        '--input-type=module',
        '-e',
        // The route's WebP settings for a large image (shared/image/encode.ts).
        `import sharp from 'sharp'; await sharp(${JSON.stringify(photo)}).autoOrient().webp({ quality: 85, effort: 3 }).toFile(${JSON.stringify(file('photo-50mp-bare.webp'))});`,
      ]),
    ),
    imagemagick
      ? row(
          photoLabel,
          '→ WebP',
          'ImageMagick',
          await viaTool(imagemagick, [photo, '-quality', '85', file('photo-50mp-im.webp')]),
        )
      : missing(photoLabel, '→ WebP', 'ImageMagick'),
  );
  await rm(photo);

  // A 300-page PDF.
  const book = file('report-300.pdf');
  await writeReport(book, 300);
  const bookLabel = `300-page PDF (${formatBytes(await sizeOf(book))})`;
  const bookUrl = context.sources.add(book);
  rows.push(
    row(bookLabel, 'split into pages', 'service', await viaService('/pdf-split', { sourceUrl: bookUrl })),
  );
  rows.push(
    qpdf
      ? row(
          bookLabel,
          'split into pages',
          'qpdf',
          await viaTool(qpdf, ['--split-pages', book, file('book-%d.pdf')]),
        )
      : missing(bookLabel, 'split into pages', 'qpdf'),
  );
  rows.push(
    row(
      bookLabel,
      'rasterize all pages, 36 dpi',
      'service',
      await viaService('/pdf-to-image', { sourceUrl: bookUrl, dpi: 36 }),
    ),
  );
  rows.push(
    pdftoppm
      ? row(
          bookLabel,
          'rasterize all pages, 36 dpi',
          'pdftoppm',
          await viaTool(pdftoppm, ['-r', '36', '-png', book, file('book-page')]),
        )
      : missing(bookLabel, 'rasterize all pages, 36 dpi', 'pdftoppm'),
  );
  rows.push(
    row(bookLabel, 'compress (medium)', 'service', await viaService('/pdf-compress', { sourceUrl: bookUrl })),
  );
  rows.push(
    ghostscript
      ? row(
          bookLabel,
          'compress (medium)',
          'Ghostscript /ebook',
          await viaTool(ghostscript, [
            '-sDEVICE=pdfwrite',
            '-dPDFSETTINGS=/ebook',
            '-dNOPAUSE',
            '-dBATCH',
            '-dQUIET',
            `-sOutputFile=${file('book-gs.pdf')}`,
            book,
          ]),
        )
      : missing(bookLabel, 'compress (medium)', 'Ghostscript /ebook'),
  );
  await rm(book);

  // Video: a camera-rate clip, and the same clip looped past 100 MB: memory must not follow the size.
  const small = file('camera-small.mp4');
  const large = file('camera-large.mp4');
  await writeCameraClip(small, 5);
  await writeLooped(small, large, Math.ceil((110 * MB) / (await sizeOf(small))));
  const flat: Array<{ operation: string; small: Measured; large: Measured }> = [];
  const videoOperations = [
    { operation: 'remux → mkv (copy)', route: '/video-convert', body: { outputFormat: 'mkv' } },
    { operation: 'extract audio → mp3', route: '/video-extract-audio', body: { outputFormat: 'mp3' } },
    { operation: 'thumbnail', route: '/video-thumbnail', body: {} },
  ];
  for (const { operation, route, body } of videoOperations) {
    const measured: Partial<Record<'small' | 'large', Measured>> = {};
    for (const [size, path] of [
      ['small', small],
      ['large', large],
    ] as const) {
      const label = `video ${formatBytes(await sizeOf(path))}`;
      measured[size] = await viaService(route, { sourceUrl: context.sources.add(path), ...body });
      rows.push(row(label, operation, 'service', measured[size]));
    }
    flat.push({ operation, small: measured.small!, large: measured.large! });
  }
  rows.push(
    row(
      `video ${formatBytes(await sizeOf(large))}`,
      'remux → mkv (copy)',
      'ffmpeg alone',
      await viaTool(ffmpegPath, [
        '-v',
        'error',
        '-y',
        '-i',
        large,
        '-c',
        'copy',
        join(context.workDir, 'large.mkv'),
      ]),
    ),
  );
  const growth = Math.max(
    ...flat.map(({ small: a, large: b }) =>
      Math.max(b.peak - b.baseline - (a.peak - a.baseline), (b.childPeak ?? 0) - (a.childPeak ?? 0)),
    ),
  );
  const inputGrowth = (await sizeOf(large)) - (await sizeOf(small));
  await rm(small);
  await rm(large);

  return {
    title: 'Memory on large inputs',
    tables: [
      {
        caption:
          'Peak resident memory per operation (service: the gateway process, its growth during the request in brackets, and the largest ffmpeg or ffprobe it started)',
        head: ['Input', 'Operation', 'Contender', 'Time', 'Peak RSS', 'Peak RSS of ffmpeg'],
        rows,
      },
    ],
    budgets: [
      {
        name: 'Media memory flat in input size',
        target: 'peak growth ≤ 16 MB when the source grows by ~90 MB',
        measured: `${formatBytes(Math.max(0, growth))} more for a ${formatBytes(inputGrowth)} larger source (worst operation and process)`,
        met: growth <= 16 * MB,
      },
    ],
    notes: [
      "Peaks are high-water marks read from /proc (VmHWM); the gateway's is restarted before each request, " +
        "ffmpeg's is sampled every 20 ms. The inputs were generated for this run and deleted after it.",
    ],
  };
}
