/**
 * Sample files for README's examples, made here and served on loopback:
 *
 *   npm run samples        # http://127.0.0.1:3001/photo.jpg, paper.pdf, locked.pdf (password reader),
 *                          # annex.pdf, form.pdf, clip.mp4, report.docx,
 *                          # page.html (with page.css and the photo; its table is drawn by a script)
 *
 * The service downloads sources from loopback only with SOURCE_ALLOW_PRIVATE=true (README's quick
 * start). POST /hook is a webhook receiver for the async job example: it prints what it receives
 * and whether its X-Signature checks with the webhook secret (WEBHOOK_SECRET, else the one
 * `npm start` generated and keeps in its state folder), and answers 204.
 * SAMPLES_PORT and SAMPLES_HOST change where it listens. It stops as `npm start` does: on SIGINT,
 * SIGTERM, or when npm, which started it, ends.
 */
import { execFile } from 'node:child_process';
import { timingSafeEqual } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { stateDirOf, storedWebhookSecret } from '../infra/local/state.ts';
import { stopOnSignals } from '../infra/local/stop-signals.ts';
import { signBody } from '../shared/jobs/webhook.ts';
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

/**
 * A one-page PDF with a form: a text field "name", filled in with "Grace Hopper", and a checkbox
 * "subscribe", each with its label.
 */
async function form(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 300]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('Name', { x: 20, y: 270, size: 12, font });
  page.drawText('Subscribe to the newsletter', { x: 44, y: 204, size: 12, font });
  const fields = doc.getForm();
  const name = fields.createTextField('name');
  name.setText('Grace Hopper');
  name.addToPage(page, { x: 20, y: 240, width: 200, height: 24 });
  fields.createCheckBox('subscribe').addToPage(page, { x: 20, y: 200, width: 16, height: 16 });
  return Buffer.from(await doc.save());
}

/**
 * The sample paper encrypted (AES-256) by qpdf: user password "reader", owner password
 * "owner-secret". qpdf is the one of QPDF_PATH, else the one on the PATH; without it there is no
 * locked.pdf, and the samples say so.
 */
async function locked(paperPdf: Buffer, folder: string): Promise<Buffer | undefined> {
  const [plain, encrypted] = [join(folder, 'paper.pdf'), join(folder, 'locked.pdf')];
  await writeFile(plain, paperPdf);
  const qpdf = process.env.QPDF_PATH || 'qpdf';
  try {
    await promisify(execFile)(qpdf, ['--encrypt', 'reader', 'owner-secret', '256', '--', plain, encrypted]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    process.stderr.write('locked.pdf is not served: qpdf is not installed (set QPDF_PATH to one).\n');
    return undefined;
  }
  return readFile(encrypted);
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
  '/form.pdf': { type: 'application/pdf', body: await form() },
  '/clip.mp4': { type: 'video/mp4', body: await clip(folder) },
  '/report.docx': {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    body: makeDocx('Sample report\nRevenue grew by seven percent in the third quarter.'),
  },
};
const lockedPaper = await locked(files['/paper.pdf']!.body, folder);
if (lockedPaper) files['/locked.pdf'] = { type: 'application/pdf', body: lockedPaper };
await rm(folder, { recursive: true, force: true });

/** A web page with a relative stylesheet and image, whose table only its script draws. */
const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quarterly report</title>
<link rel="stylesheet" href="page.css"></head>
<body><h1>Quarterly report</h1><img src="photo.jpg" alt="The office" width="320">
<table id="figures"></table>
<script>
  const rows = [['Quarter', 'Revenue'], ['Q1', '1.2 M'], ['Q2', '1.4 M'], ['Q3', '1.5 M']];
  document.getElementById('figures').innerHTML = rows
    .map((cells, at) => '<tr>' + cells.map((cell) => (at ? '<td>' : '<th>') + cell).join('') + '</tr>')
    .join('');
</script></body></html>
`;
const pageStyle =
  'body { font-family: sans-serif; margin: 2em; } h1 { color: #1d4ed8; } td, th { padding: 4px 12px; }\n';
files['/page.html'] = { type: 'text/html; charset=utf-8', body: Buffer.from(page) };
files['/page.css'] = { type: 'text/css; charset=utf-8', body: Buffer.from(pageStyle) };

/** What a webhook says about its signature, checked as a receiver should (constant time). */
async function signatureCheck(body: string, signature: string | undefined): Promise<string> {
  const secret = process.env.WEBHOOK_SECRET || (await storedWebhookSecret(stateDirOf(process.env)));
  if (!secret) return 'signature not checked: no WEBHOOK_SECRET here, and npm start has generated none yet';
  if (!signature) return 'signature MISSING (no X-Signature header)';
  const expected = Buffer.from(signBody(body, secret));
  const given = Buffer.from(signature);
  const valid = given.length === expected.length && timingSafeEqual(given, expected);
  return valid ? 'signature valid' : 'signature INVALID: not made with this WEBHOOK_SECRET';
}

const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  if (request.method === 'POST' && path === '/hook') {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = request.headers['x-signature'];
      const check = await signatureCheck(body, Array.isArray(signature) ? signature[0] : signature);
      console.log(`POST /hook (${check}): ${body}`);
      response.writeHead(204).end();
    });
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
const port = Number(process.env.SAMPLES_PORT ?? 3001);
const host = process.env.SAMPLES_HOST ?? '127.0.0.1';
// A busy port is said in one line, as npm start says it, not as a stack trace.
server.once('error', (error: NodeJS.ErrnoException) => {
  const where = `port ${port} on ${host}`;
  const why =
    error.code === 'EADDRINUSE'
      ? `${where} is already in use (an earlier npm run samples?): stop the process that holds it, or set SAMPLES_PORT to another port (0 picks a free one).`
      : `cannot listen on ${where}: ${error.message}`;
  process.stderr.write(`npm run samples: ${why}\n`);
  process.exit(1);
});
server.listen(port, host, () => {
  const { address, port } = server.address() as AddressInfo;
  const base = `http://${address}:${port}`;
  console.log(
    `Samples on ${base}: ${Object.keys(files).join(' ')} (POST /hook prints each webhook and checks its signature)`,
  );
});
stopOnSignals(() => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
