import { READ_DPI } from '#shared/codes/limits.ts';
import {
  barcodeBody,
  barcodeReadBody,
  barcodeReadResult,
  barcodeTypes,
  codeContentTypes,
  codeOutputFormats,
  DEFAULT_READ_PAGES,
  MAX_QR_BYTES,
  qrCodeBody,
} from '#shared/codes/schemas.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { samplePdf } from '#shared/routes/pdf.ts';
import { samplePhoto } from '#shared/routes/samples.ts';
import { bufferedSizing, drawnSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

const codeTypes = codeOutputFormats.map((format) => codeContentTypes[format]);

export const qrCodeRoute = defineRoute({
  method: 'POST',
  path: '/qr-code',
  function: 'qr-code',
  kind: 'file',
  sizing: drawnSizing(512, 30),
  jobStore: 'run',
  formats: { categories: ['text'], inputs: ['text'], outputs: codeOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Codes',
  summary: 'Make a QR code of a text, as PNG or SVG',
  description:
    `The text (up to ${MAX_QR_BYTES} bytes of UTF-8) is encoded by the qrcode library in the smallest QR ` +
    'version that holds it at the chosen error correction, in the densest modes the text allows (numeric, ' +
    'alphanumeric, Kanji, else bytes). A text the level cannot hold answers 400 `invalid_input`. The image ' +
    'is `size` pixels square (a code with more modules than that is drawn one pixel a module), with a quiet ' +
    'zone of `margin` modules; `color` and `background` are CSS colours (alpha kept in PNG). The file is ' +
    'named `qr-code.<format>`.',
  body: qrCodeBody,
  produces: codeTypes,
  example: { text: 'https://example.com/order/1234', size: 512, errorCorrection: 'M' },
  moreExamples: {
    svg: {
      summary: 'An SVG with a high error correction, dark blue on transparent',
      body: {
        text: 'WIFI:T:WPA;S:guest;P:welcome;;',
        outputFormat: 'svg',
        errorCorrection: 'H',
        color: '#1a237e',
        background: 'transparent',
      },
    },
  },
  errors: ['invalid_input', 'validation_failed'],
});

export const barcodeRoute = defineRoute({
  method: 'POST',
  path: '/barcode',
  function: 'barcode',
  kind: 'file',
  sizing: drawnSizing(512, 30),
  jobStore: 'run',
  formats: { categories: ['text'], inputs: ['text'], outputs: codeOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Codes',
  summary: `Make a barcode (${barcodeTypes.join(', ')}), as PNG or SVG`,
  description:
    'The barcode is drawn by BWIPP (bwip-js), black on white with a 10-module-wide quiet zone, `scale` ' +
    'pixels a module. Linear codes print their text below the bars unless `includeText` is false; ' +
    '`height` sets their bar height. EAN-13, EAN-8, UPC-A and ITF-14 take their digits without the check ' +
    'digit (it is computed) or with it (it is checked). A text the symbology cannot hold (a letter in ' +
    'EAN-13, a wrong check digit, a lowercase letter in Code 39, too much data for a 2D code) answers 400 ' +
    '`invalid_input` saying why. The file is named `<type>.<format>`.',
  body: barcodeBody,
  produces: codeTypes,
  example: { text: '5901234123457', type: 'ean13' },
  moreExamples: {
    code128: {
      summary: 'A Code 128 label as SVG',
      body: { text: 'ABC-12345', type: 'code128', outputFormat: 'svg' },
    },
    datamatrix: {
      summary: 'A Data Matrix code',
      body: { text: 'SN:00042;LOT:7', type: 'datamatrix', scale: 4 },
    },
  },
  errors: ['invalid_input', 'validation_failed'],
});

export const barcodeReadRoute = defineRoute({
  method: 'POST',
  path: '/barcode-read',
  function: 'barcode-read',
  kind: 'json',
  sizing: bufferedSizing(2048, true),
  formats: { categories: ['image', 'pdf'], inputs: [...imageInputFormats, 'pdf'], outputs: ['json'] },
  tag: 'Codes',
  summary: 'Find and read the QR codes and barcodes in an image or PDF pages',
  description:
    'The source is downloaded under the source rules and read as the format its bytes show: an image ' +
    `(${imageInputFormats.join(', ')}; its upright first frame, the header checked against the ` +
    `${imageLimits.maxPixels / 1e6}-megapixel limit before decoding, as for the image routes) or a PDF, whose ` +
    `pages (\`pages\`, default the first ${DEFAULT_READ_PAGES}) are rendered by the PDF rasterizer at ` +
    `${READ_DPI} dpi under its limits. zxing-cpp reads every code it finds: QR, Micro QR, Data Matrix, Aztec, ` +
    'PDF417, Code 128, Code 39, Code 93, Codabar, EAN-13, EAN-8, UPC-A, UPC-E, ITF, DataBar. Each has its ' +
    'symbology, its text and the box around it in pixels of the image (or page); `page` for a PDF. No code: ' +
    '`{codes: []}`.',
  body: barcodeReadBody,
  response: barcodeReadResult,
  example: { sourceUrl: samplePhoto },
  moreExamples: {
    pdf: { summary: 'Codes on the first three pages of a PDF', body: { sourceUrl: samplePdf, pages: '1-3' } },
  },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_range'],
});

export const codeRoutes: RouteSpec[] = [qrCodeRoute, barcodeRoute, barcodeReadRoute];
