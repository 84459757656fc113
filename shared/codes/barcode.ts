import bwipjs from 'bwip-js';
import { type BarcodeType, type CodeOutputFormat, matrixTypes } from '#shared/codes/schemas.ts';
import { ApiError } from '#shared/errors.ts';

export interface BarcodeOptions {
  type: BarcodeType;
  outputFormat: CodeOutputFormat;
  scale: number;
  height?: number | undefined;
  includeText?: boolean | undefined;
}

/** bwip-js's names of the contract's symbologies. */
const bwipNames: Record<BarcodeType, string> = {
  code128: 'code128',
  code39: 'code39',
  ean13: 'ean13',
  ean8: 'ean8',
  upca: 'upca',
  itf14: 'itf14',
  datamatrix: 'datamatrix',
  pdf417: 'pdf417',
  aztec: 'azteccode',
};

/**
 * BWIPP refuses a text its symbology cannot hold with an error named `bwipp.<reason>#<n>: <text>`
 * (a letter in EAN-13, a wrong check digit, too much data): that is the caller's input.
 */
function refusal(error: unknown, type: BarcodeType): ApiError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const match = /^bwipp\.\w+#\d+:\s*(.*)$/s.exec(message);
  if (!match) return undefined;
  return new ApiError('invalid_input', `text: ${type} cannot hold this text: ${match[1]}`, { cause: error });
}

/** A barcode of the text in one of the contract's symbologies, drawn by BWIPP (bwip-js). */
export async function makeBarcode(text: string, options: BarcodeOptions): Promise<Buffer> {
  const matrix = matrixTypes.has(options.type);
  const settings = {
    bcid: bwipNames[options.type],
    text,
    scale: options.scale,
    ...(options.height === undefined || matrix ? {} : { height: options.height }),
    includetext: options.includeText ?? !matrix,
    textxalign: 'center' as const,
    backgroundcolor: 'ffffff',
    paddingwidth: 10,
    paddingheight: 10,
  };
  try {
    if (options.outputFormat === 'svg') return Buffer.from(bwipjs.toSVG(settings));
    return await bwipjs.toBuffer(settings);
  } catch (error) {
    throw refusal(error, options.type) ?? error;
  }
}
