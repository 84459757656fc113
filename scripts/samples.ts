/**
 * Sample files for README's examples, made here and served on loopback:
 *
 *   npm run samples        # http://127.0.0.1:3001/photo.jpg, paper.pdf, annex.pdf, clip.mp4, report.docx
 *
 * The service downloads sources from loopback only with SOURCE_ALLOW_PRIVATE=true (README's quick
 * start). POST /hook answers 204, as a webhook receiver for the async job example.
 * SAMPLES_PORT and SAMPLES_HOST change where it listens.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { makeDocx } from '../test/support/office-documents.ts';
import { referenceFfmpeg } from '../test/support/reference-tools.ts';

/** A 1200×800 photo-like JPEG: a colour gradient with soft noise. */
async function photo(): Promise<Buffer> {
  const width = 1200;
  const height = 800;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 3;
      const noise = ((x * 7919 + y * 104729) % 23) - 11;
      pixels[at] = Math.min(255, Math.max(0, Math.round((255 * x) / width) + noise));
      pixels[at + 1] = Math.min(255, Math.max(0, Math.round((255 * y) / height) + noise));
      pixels[at + 2] = Math.min(255, Math.max(0, 160 + noise));
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** An A4 document of `pages` pages of text with a coloured band, each page numbered. */
async function paper(title: string, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let number = 1; number <= pages; number += 1) {
    const page = doc.addPage([595, 842]);
    page.drawRectangle({ x: 0, y: 780, width: 595, height: 62, color: rgb(0.2, 0.4, 0.7) });
    page.drawText(`${title}, page ${number} of ${pages}`, { x: 50, y: 730, size: 20, font });
    for (let line = 0; line < 20; line += 1) {
      page.drawText(`Line ${line + 1}: sample text for the conversion examples.`, {
        x: 50,
        y: 690 - line * 24,
        size: 12,
        font,
      });
    }
  }
  return Buffer.from(await doc.save());
}

/** A 4 s 320×240 MP4: a test pattern (H.264) with a 440 Hz tone (AAC). */
async function clip(folder: string): Promise<Buffer> {
  const path = join(folder, 'clip.mp4');
  await promisify(execFile)(referenceFfmpeg, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=25:duration=4',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=4',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-movflags',
    '+faststart',
    '-shortest',
    path,
  ]);
  return readFile(path);
}

const folder = await mkdtemp(join(tmpdir(), 'samples-'));
const files: Record<string, { type: string; body: Buffer }> = {
  '/photo.jpg': { type: 'image/jpeg', body: await photo() },
  '/paper.pdf': { type: 'application/pdf', body: await paper('Sample paper', 8) },
  '/annex.pdf': { type: 'application/pdf', body: await paper('Annex', 2) },
  '/clip.mp4': { type: 'video/mp4', body: await clip(folder) },
  '/report.docx': {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    body: makeDocx('Sample report\nRevenue grew by seven percent in the third quarter.'),
  },
};
await rm(folder, { recursive: true, force: true });

const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  if (request.method === 'POST' && path === '/hook') {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
    return;
  }
  const file = files[path];
  if (!file || (request.method !== 'GET' && request.method !== 'HEAD')) {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    return;
  }
  response.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length });
  response.end(request.method === 'HEAD' ? undefined : file.body);
});
server.listen(Number(process.env.SAMPLES_PORT ?? 3001), process.env.SAMPLES_HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  const base = `http://${address}:${port}`;
  console.log(`Samples on ${base}: ${Object.keys(files).join(' ')} (POST /hook answers 204)`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
