import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBarcode } from '#shared/codes/barcode.ts';
import { makeQrCode } from '#shared/codes/qr.ts';
import { readImageCodes } from '#shared/codes/read.ts';
import { ApiError } from '#shared/errors.ts';

/**
 * QR codes and barcodes made by qrcode and bwip-js, read back by independent decoders: zbar (QR and
 * linear codes), libdmtx's dmtxread (Data Matrix) and Debian's zxing-cpp Python binding (PDF417 and
 * Aztec, which zbar does not read; a reader independent of the generator). The reader is given codes
 * drawn by zint.
 */

const run = promisify(execFile);
let dir = '';
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codes-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function save(bytes: Buffer, extension = 'png'): Promise<string> {
  count += 1;
  const path = join(dir, `code-${count}.${extension}`);
  await writeFile(path, bytes);
  return path;
}

/** zbar's reading: `TYPE:text` lines. */
const zbar = async (path: string) => (await run('zbarimg', ['-q', '--raw', '-Sbinary', path])).stdout;

/** Every code zxing-cpp's Python binding reads in each file, in order: `Format:text` lines. */
const zxingPython = async (...paths: string[]) =>
  (
    await run('/usr/bin/python3', [
      '-c',
      'import sys, zxingcpp; from PIL import Image; print("\\n".join(r.format.name + ":" + r.text for p in sys.argv[1:] for r in zxingcpp.read_barcodes(Image.open(p))))',
      ...paths,
    ])
  ).stdout.trim();

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
  );

describe('qr-code', () => {
  it('zbar reads back exactly the text, non-ASCII included, as PNG and SVG', async () => {
    const text = 'https://example.com/?q=Grüße 你好';
    const png = await makeQrCode(text, { outputFormat: 'png', size: 300, errorCorrection: 'H', margin: 4 });
    expect(await zbar(await save(png))).toBe(text);
    const svg = await makeQrCode(text, { outputFormat: 'svg', size: 300, errorCorrection: 'M', margin: 4 });
    // librsvg draws the SVG (the code under test is the qrcode library's).
    const rendered = await save(await sharp(svg).flatten({ background: '#ffffff' }).png().toBuffer());
    expect(await zbar(rendered)).toBe(text);
  });

  it('a text the level cannot hold is invalid_input', async () => {
    const text = 'x'.repeat(2900);
    expect(
      await codeOf(makeQrCode(text, { outputFormat: 'png', size: 64, errorCorrection: 'H', margin: 4 })),
    ).toBe('invalid_input');
  });
});

describe('barcode', () => {
  it.each([
    ['code128', 'ABC-12345', 'CODE-128:ABC-12345'],
    ['code39', 'CODE39 TEST', 'CODE-39:CODE39 TEST'],
    ['ean13', '590123412345', 'EAN-13:5901234123457'],
    ['ean8', '9638507', 'EAN-8:96385074'],
    ['upca', '03600029145', 'UPC-A:036000291452'],
    ['itf14', '1234567890123', 'I2/5:12345678901231'],
  ] as const)('%s is read back by zbar', async (type, text, read) => {
    const png = await makeBarcode(text, { type, outputFormat: 'png', scale: 3 });
    const typed = await run('zbarimg', [
      '-q',
      '--set',
      'upca.enable',
      '--set',
      'i25.enable',
      await save(png),
    ]);
    const line = typed.stdout.trim();
    if (type === 'upca') expect([read, `EAN-13:0${read.slice(6)}`]).toContain(line);
    else expect(line).toBe(read);
  });

  it('datamatrix is read back by dmtxread', async () => {
    const png = await makeBarcode('SN:00042;LOT:7', { type: 'datamatrix', outputFormat: 'png', scale: 4 });
    expect((await run('dmtxread', [await save(png)])).stdout).toBe('SN:00042;LOT:7');
  });

  it('pdf417 and aztec are read back by zxing-cpp (Debian)', async () => {
    const paths = [];
    for (const type of ['pdf417', 'aztec'] as const) {
      paths.push(await save(await makeBarcode('Hello 2026', { type, outputFormat: 'png', scale: 3 })));
    }
    expect(await zxingPython(...paths)).toBe('PDF417:Hello 2026\nAztec:Hello 2026');
  });

  it.each([
    ['ean13', '59012341234A'],
    ['ean13', '5901234123458'],
    ['code39', 'lowercase'],
    ['upca', '1234'],
  ] as const)('%s refuses %s as invalid_input', async (type, text) => {
    expect(await codeOf(makeBarcode(text, { type, outputFormat: 'png', scale: 2 }))).toBe('invalid_input');
  });
});

describe('barcode-read', () => {
  it('reads codes drawn by zint: QR, EAN-13, Code 128 and Data Matrix in one image', async () => {
    const parts: string[] = [];
    for (const [barcode, data] of [
      ['QRCODE', 'zint qr'],
      ['EANX', '5901234123457'],
      ['CODE128', 'Z-128'],
      ['DATAMATRIX', 'zint dm'],
    ]) {
      const path = join(dir, `zint-${barcode}.png`);
      await run('zint', ['-b', barcode!, '-d', data!, '--scale=3', '-o', path]);
      parts.push(path);
    }
    const sheet = join(dir, 'sheet.png');
    await run('convert', [
      ...parts,
      '-background',
      'white',
      '-splice',
      '40x40',
      '+append',
      '-bordercolor',
      'white',
      '-border',
      '40',
      sheet,
    ]);
    const codes = await readImageCodes({ path: sheet, format: 'png' });
    expect(codes.map((code) => `${code.type}:${code.text}`).sort()).toEqual(
      ['code128:Z-128', 'datamatrix:zint dm', 'ean13:5901234123457', 'qrcode:zint qr'].sort(),
    );
    for (const code of codes) {
      expect(code.bounds.width).toBeGreaterThan(10);
      expect(code.bounds.left).toBeGreaterThanOrEqual(40);
    }
  });

  it('an image without a code gives no code', async () => {
    const path = join(dir, 'plain.png');
    await run('convert', ['-size', '200x100', 'gradient:white-grey', path]);
    expect(await readImageCodes({ path, format: 'png' })).toEqual([]);
  });
});
