import { readFile } from 'node:fs/promises';
import bwipjs from 'bwip-js';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import { withEncoder } from '#shared/image/encode.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { type BenchContext, workFile } from './context.ts';
import { writePhoto } from './inputs.ts';
import { contest, formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import type { Budget, SectionResult } from './report.ts';
import { routeSettings } from './route-encoder.ts';
import { post } from './service.ts';

/**
 * Issue 33: the image tools and codes against their bare engines, side by side in one run.
 * - /image-transform with three operations on a 1920 × 1080 JPEG against bare sharp running the
 *   same chain with the route's encoder settings (kept-alive and a connection per request).
 * - /qr-code and /barcode, warm, against the qrcode and bwip-js libraries called in a loop.
 * - /barcode-read of a 12 MP photo holding a QR code against zxing-wasm reading the same file.
 */

const connections = [
  { name: 'service, kept-alive connection', connection: 'kept alive' },
  { name: 'service, a connection per request', connection: 'one per request' },
] as const;

/** rotate → resize → sharpen: the order sharp itself runs them in, so one bare pipeline does the same work. */
const operations = [
  { op: 'rotate', angle: 90 },
  { op: 'resize', width: 720 },
  { op: 'sharpen', sigma: 1 },
];

function bareTransform(path: string): Promise<Buffer> {
  const image = sharp(path, { failOn: 'error', limitInputPixels: imageLimits.maxPixels })
    .autoOrient()
    .rotate(90)
    .resize({ width: 720, fit: 'inside', withoutEnlargement: true })
    .sharpen({ sigma: 1 });
  return withEncoder(image, 'jpg', routeSettings(720 * 1280)).toBuffer();
}

const qrBody = { text: 'https://example.com/order/1234?ref=bench', size: 512, errorCorrection: 'M' };
const barcodeBody = { text: 'ABC-1234567', type: 'code128' };

interface Row {
  label: string;
  contender: string;
  times: number[];
  bare: number[];
  budget: number;
  bareName: string;
}

/** Runs one part; a failure is noted with the gateway's last error lines, and the other parts still run. */
async function part(
  context: BenchContext,
  name: string,
  failures: string[],
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    const recent = context.service.recentErrors().slice(-3).join(' | ');
    failures.push(
      `${name} failed: ${error instanceof Error ? error.message : String(error)}${recent ? ` (gateway: ${recent})` : ''}`,
    );
  }
}

export async function benchImageTools(context: BenchContext): Promise<SectionResult> {
  const runs = Math.max(context.runs, context.quick ? 7 : 15);
  const measured: Row[] = [];
  const failures: string[] = [];

  await part(context, '/image-transform', failures, async () => {
    const photo = workFile(context, 'transform-1920x1080.jpg');
    await writePhoto(photo, 1920, 1080);
    const photoUrl = context.sources.add(photo);
    const transformBody = { sourceUrl: photoUrl, operations };
    const transform = await contest(
      [
        ...connections.map(({ name, connection }) => ({
          name,
          run: async () =>
            (await post(context.service.url, '/image-transform', transformBody, { connection })).bytes,
        })),
        { name: 'sharp', run: async () => (await bareTransform(photo)).length },
      ],
      runs,
    );
    for (const { name } of connections) {
      measured.push({
        label: '/image-transform: rotate 90, resize 720 wide, sharpen on a 1920 × 1080 JPEG → JPEG',
        contender: name,
        times: transform.times.get(name)!,
        bare: transform.times.get('sharp')!,
        budget: 1.1,
        bareName: 'sharp, the same chain',
      });
    }
  });

  await part(context, '/qr-code and /barcode', failures, async () => {
    const codes = await contest(
      [
        { name: '/qr-code', run: async () => (await post(context.service.url, '/qr-code', qrBody)).bytes },
        {
          name: 'qrcode',
          run: async () =>
            (
              await QRCode.toBuffer(qrBody.text, {
                type: 'png',
                width: 512,
                margin: 4,
                errorCorrectionLevel: 'M',
              })
            ).length,
        },
        {
          name: '/barcode',
          run: async () => (await post(context.service.url, '/barcode', barcodeBody)).bytes,
        },
        {
          name: 'bwip-js',
          run: async () =>
            (
              await bwipjs.toBuffer({
                bcid: 'code128',
                text: barcodeBody.text,
                scale: 2,
                includetext: true,
                textxalign: 'center',
                backgroundcolor: 'ffffff',
                paddingwidth: 10,
                paddingheight: 10,
              })
            ).length,
        },
      ],
      runs * 2,
    );
    measured.push({
      label: '/qr-code, 512 px PNG, warm',
      contender: 'service, kept-alive connection',
      times: codes.times.get('/qr-code')!,
      bare: codes.times.get('qrcode')!,
      budget: 1.5,
      bareName: 'qrcode library',
    });
    measured.push({
      label: '/barcode, Code 128 PNG, warm',
      contender: 'service, kept-alive connection',
      times: codes.times.get('/barcode')!,
      bare: codes.times.get('bwip-js')!,
      budget: 1.5,
      bareName: 'bwip-js library',
    });
  });

  await part(context, '/barcode-read', failures, async () => {
    const big = workFile(context, 'read-4000x3000.jpg');
    const code = await QRCode.toBuffer('https://example.com/read/bench', {
      type: 'png',
      width: 600,
      margin: 4,
    });
    await sharp({
      create: {
        width: 4000,
        height: 3000,
        channels: 3,
        background: '#6080a0',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .blur(1.5)
      .composite([{ input: code, left: 1700, top: 1200 }])
      .jpeg({ quality: 90 })
      .toFile(big);
    const bigUrl = context.sources.add(big);
    const wasm = await readFile(new URL(import.meta.resolve('zxing-wasm/reader/zxing_reader.wasm')));
    prepareZXingModule({ overrides: { wasmBinary: new Uint8Array(wasm) } });
    const read = await contest(
      [
        {
          name: '/barcode-read',
          run: async () => (await post(context.service.url, '/barcode-read', { sourceUrl: bigUrl })).bytes,
        },
        {
          name: 'zxing-wasm',
          run: async () =>
            (
              await readBarcodes(new Uint8Array(await readFile(big)), {
                tryHarder: true,
                maxNumberOfSymbols: 255,
              })
            ).length,
        },
      ],
      Math.max(5, Math.round(runs / 2)),
    );
    measured.push({
      label: '/barcode-read of a 12 MP JPEG holding a QR code',
      contender: 'service, kept-alive connection',
      times: read.times.get('/barcode-read')!,
      bare: read.times.get('zxing-wasm')!,
      budget: 1.5,
      bareName: 'zxing-wasm reading the same file',
    });
  });

  const rows: string[][] = [];
  const budgets: Budget[] = [];
  for (const row of measured) {
    const ratio = pairedRatio(row.times, row.bare);
    rows.push([
      row.label,
      row.contender,
      formatMs(median(row.times)),
      row.bareName,
      formatMs(median(row.bare)),
      formatRatio(ratio),
    ]);
    budgets.push({
      name: `${row.label} (${row.contender.replace('service, ', '')})`,
      target: `≤ ${row.budget.toFixed(2)}× ${row.bareName}`,
      measured: `${formatRatio(ratio)} (${formatMs(median(row.times))} vs ${formatMs(median(row.bare))})`,
      met: Number.isNaN(ratio) ? undefined : ratio <= row.budget,
    });
  }
  return {
    title: 'Image tools and codes',
    tables: [
      {
        caption: `Median of ${runs} interleaved runs after a warm-up (codes: ${runs * 2}; barcode-read: ${Math.max(5, Math.round(runs / 2))})`,
        head: ['Operation', 'Contender', 'Time', 'Bare', 'Bare time', 'vs bare'],
        rows,
      },
    ],
    budgets,
    notes: [
      ...failures,
      'The service time is the whole request through the local gateway: HTTP, the download over loopback, the ' +
        'header checks, the work and the answer. /image-transform decodes once and encodes once, but runs each ' +
        'operation over the decoded pixels in turn (raw pixels between the operations, so that any order and ' +
        'animations work), where bare sharp fuses the three into one streaming pipeline.',
      'The bare reader reads the JPEG itself (zxing-cpp decodes it with stb_image inside the WebAssembly); the ' +
        'service decodes it with libvips after the pixel-limit checks and hands the reader RGBA pixels.',
    ],
  };
}
