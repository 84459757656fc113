import { writeFile } from 'node:fs/promises';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { ffmpegPath } from '#shared/media/binaries.ts';
import { runTool } from './processes.ts';

/**
 * The inputs every benchmark works on, generated from scratch so that anyone can reproduce them.
 * They are written to a temporary folder and deleted at the end of the run.
 */

/**
 * Photo-like pixels (coloured noise, blurred), written as a JPEG of quality 90. The default blur
 * leaves camera-like detail (a 12 MP photo of about 3 MB); a larger one, a smoother picture.
 */
export async function writePhoto(path: string, width: number, height: number, blur = 1.5): Promise<void> {
  await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#6080a0',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .blur(blur)
    .jpeg({ quality: 90 })
    .toFile(path);
}

/** A report: per page 30 lines of text, a photo and twenty filled circles (US Letter). */
export async function writeReport(path: string, pages: number): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const photo = await sharp({
    create: {
      width: 800,
      height: 600,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .blur(1)
    .jpeg({ quality: 85 })
    .toBuffer();
  const image = await doc.embedJpg(photo);
  const line = 'The quick brown fox jumps over the lazy dog, and the report goes on for another line. ';
  for (let number = 0; number < pages; number += 1) {
    const page = doc.addPage([612, 792]);
    for (let row = 0; row < 30; row += 1) {
      page.drawText(`${number + 1}.${row + 1} ${line}`, { x: 54, y: 740 - row * 14, size: 10, font });
    }
    page.drawImage(image, { x: 54, y: 60, width: 300, height: 225 });
    for (let circle = 0; circle < 20; circle += 1) {
      page.drawCircle({
        x: 420 + (circle % 5) * 25,
        y: 100 + Math.floor(circle / 5) * 40,
        size: 12,
        color: rgb(circle / 20, 0.3, 0.6),
      });
    }
  }
  await writeFile(path, await doc.save());
}

/** Two A4 pages scanned at 300 dpi, stored as JPEG (quality 90): what compression is for. */
export async function writeScan(path: string): Promise<void> {
  const doc = await PDFDocument.create();
  for (let page = 0; page < 2; page += 1) {
    const jpeg = await sharp({
      create: {
        width: 2480,
        height: 3508,
        channels: 3,
        background: '#f0f0e8',
        noise: { type: 'gaussian', mean: 200, sigma: 30 },
      },
    })
      .blur(1.2)
      .jpeg({ quality: 90 })
      .toBuffer();
    doc
      .addPage([595.28, 841.89])
      .drawImage(await doc.embedJpg(jpeg), { x: 0, y: 0, width: 595.28, height: 841.89 });
  }
  await writeFile(path, await doc.save());
}

const ffmpeg = (args: string[]) => runTool(ffmpegPath, ['-v', 'error', '-y', ...args]);

/** A test pattern with a 440 Hz tone, grain added so that the encoder has real work. */
const pattern = (seconds: number, grain: number) => [
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=1280x720:rate=30:duration=${seconds}`,
  '-f',
  'lavfi',
  '-i',
  `sine=frequency=440:duration=${seconds}`,
  '-vf',
  `noise=alls=${grain}:allf=t`,
  '-pix_fmt',
  'yuv420p',
  '-shortest',
];

/** 720p30 H.264 (CRF 23) + AAC, about 2.7 Mbit/s: the clip the conversions work on. */
export const writeClip = (path: string, seconds: number) =>
  ffmpeg([
    ...pattern(seconds, 3),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-c:a',
    'aac',
    path,
  ]);

/** 720p30 H.264 at about 45 Mbit/s (a phone camera's rate), so that a few seconds weigh tens of MB. */
export const writeCameraClip = (path: string, seconds: number) =>
  ffmpeg([
    ...pattern(seconds, 6),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '18',
    '-c:a',
    'aac',
    path,
  ]);

/** The same clip played `times` times in a row, streams copied: a longer file at the same rate. */
export const writeLooped = (source: string, path: string, times: number) =>
  ffmpeg(['-stream_loop', String(times - 1), '-i', source, '-c', 'copy', '-movflags', '+faststart', path]);
