import type { PDFDocument, PDFRef } from 'pdf-lib';
import { openImage } from '#shared/image/decode.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { maxMarkSidePixels } from '#shared/pdf/draw-limits.ts';
import { embedSamples } from '#shared/pdf/image-to-pdf.ts';

export interface MarkImage {
  ref: PDFRef;
  width: number;
  height: number;
}

/**
 * Decodes a watermark image (its pixels checked against the limits before decoding) and embeds
 * it: an opaque image as a JPEG, one with transparency as Flate samples with a soft mask.
 */
export async function embedMarkImage(
  doc: PDFDocument,
  source: { path: string; format: ImageInputFormat },
): Promise<MarkImage> {
  const opened = await openImage(source.path, source.format, {
    targetSize: { width: maxMarkSidePixels, height: maxMarkSidePixels },
  });
  try {
    const image = opened.image
      .resize({
        width: maxMarkSidePixels,
        height: maxMarkSidePixels,
        fit: 'inside',
        withoutEnlargement: true,
      })
      .toColourspace('srgb');
    const opaque = !opened.hasAlpha || (await image.clone().stats()).isOpaque;
    if (opaque) {
      const jpeg = await image.clone().removeAlpha().jpeg({ quality: 90 }).toBuffer();
      const embedded = await doc.embedJpg(jpeg);
      return { ref: embedded.ref, width: embedded.width, height: embedded.height };
    }
    const { data, info } = await image
      .clone()
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    return {
      ref: embedSamples(doc, data, info.width, info.height, info.channels),
      width: info.width,
      height: info.height,
    };
  } catch (error) {
    mapNativeError('sharp', error);
  }
}
