import { writeFile } from 'node:fs/promises';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { referenceFfmpeg } from '../../test/support/reference-tools.ts';
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

/** A 1200 × 240 banner of overlapping translucent circles: the same pixels on every call. */
function letterheadSvg(): string {
  let seed = 7;
  const next = () => {
    seed = (seed * 48_271) % 2_147_483_647;
    return seed / 2_147_483_647;
  };
  const circles = Array.from({ length: 400 }, () => {
    const [x, y, r] = [next() * 1200, next() * 240, 4 + next() * 40];
    const colour = `rgb(${Math.round(next() * 255)},${Math.round(80 + next() * 120)},${Math.round(120 + next() * 135)})`;
    return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${r.toFixed(1)}" fill="${colour}" fill-opacity="0.5"/>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="240"><rect width="1200" height="240" fill="#2a4d7a"/>${circles.join('')}</svg>`;
}

/**
 * Invoice `number` of one template: a letterhead photo, a logo with a transparent background, the
 * standard Helvetica faces and ruled lines, with the number and twelve item lines of its own. Two
 * invoices share everything but their text: what a merge should store once.
 */
export async function invoicePdf(number: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const [regular, bold] = await Promise.all([
    doc.embedFont(StandardFonts.Helvetica),
    doc.embedFont(StandardFonts.HelveticaBold),
  ]);
  const letterhead = await sharp(Buffer.from(letterheadSvg())).blur(1.5).jpeg({ quality: 85 }).toBuffer();
  const logo = await sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240">' +
        '<circle cx="120" cy="120" r="110" fill="#e0a020"/><rect x="70" y="70" width="100" height="100" fill="#2a4d7a"/></svg>',
    ),
  )
    .png()
    .toBuffer();
  const page = doc.addPage([612, 792]);
  page.drawImage(await doc.embedJpg(letterhead), { x: 0, y: 672, width: 612, height: 120 });
  page.drawImage(await doc.embedPng(logo), { x: 480, y: 690, width: 84, height: 84 });
  page.drawText(`Invoice ${number}`, { x: 54, y: 620, size: 22, font: bold });
  for (let row = 0; row < 12; row += 1) {
    const y = 560 - row * 24;
    const amount = ((number * 7919 + row * 104_729) % 90_000) / 100 + 10;
    page.drawText(`Item ${row + 1} of order ${number}-${row * 13 + number}`, {
      x: 54,
      y,
      size: 11,
      font: regular,
    });
    page.drawText(amount.toFixed(2), { x: 480, y, size: 11, font: regular });
    page.drawLine({
      start: { x: 54, y: y - 6 },
      end: { x: 558, y: y - 6 },
      thickness: 0.5,
      color: rgb(0.6, 0.6, 0.6),
    });
  }
  return doc.save();
}

export const writeInvoice = async (path: string, number: number) => writeFile(path, await invoicePdf(number));

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

const ffmpeg = (args: string[]) => runTool(referenceFfmpeg, ['-v', 'error', '-y', ...args]);

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
