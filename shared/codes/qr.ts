import QRCode from 'qrcode';
import type { CodeOutputFormat } from '#shared/codes/schemas.ts';
import { ApiError } from '#shared/errors.ts';
import type { Rgba } from '#shared/image/colour.ts';

export interface QrOptions {
  outputFormat: CodeOutputFormat;
  size: number;
  errorCorrection: 'L' | 'M' | 'Q' | 'H';
  margin: number;
  color?: Rgba | undefined;
  background?: Rgba | undefined;
}

const hex = (value: number) => Math.round(value).toString(16).padStart(2, '0');

/** `#rrggbbaa`, the form the qrcode library takes. */
export const hexColour = (colour: Rgba) =>
  `#${hex(colour.r)}${hex(colour.g)}${hex(colour.b)}${hex(colour.alpha * 255)}`;

/** A QR code of the text (UTF-8 bytes in byte mode, or a denser mode when the text allows). */
export async function makeQrCode(text: string, options: QrOptions): Promise<Buffer> {
  const settings = {
    errorCorrectionLevel: options.errorCorrection,
    margin: options.margin,
    width: options.size,
    color: {
      dark: options.color ? hexColour(options.color) : '#000000ff',
      light: options.background ? hexColour(options.background) : '#ffffffff',
    },
  };
  try {
    if (options.outputFormat === 'svg') {
      return Buffer.from(await QRCode.toString(text, { ...settings, type: 'svg' }));
    }
    return await QRCode.toBuffer(text, { ...settings, type: 'png' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/too big|amount of data/i.test(message)) {
      throw new ApiError(
        'invalid_input',
        `text: ${Buffer.byteLength(text)} bytes do not fit in a QR code at error correction ${options.errorCorrection}; choose a lower level or a shorter text.`,
        { cause: error },
      );
    }
    throw error;
  }
}
