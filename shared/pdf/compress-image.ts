import { deflateSync, inflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFBool,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFRawStream,
} from 'pdf-lib';
import sharp, { type Sharp } from 'sharp';
import { pdfLimits } from '#shared/pdf/limits.ts';

export interface ImageSettings {
  /** The longest side, in pixels, this image needs: the level's dpi at its largest drawn size. */
  maxSidePixels: number;
  /** JPEG quality of re-encoded images. */
  quality: number;
}

/** An image stream as it will be read: its pixels as sharp input, and what it may become. */
interface DecodableImage {
  width: number;
  height: number;
  channels: 1 | 3;
  /** A JPEG, or raw 8-bit samples. */
  input: Sharp;
  /** Flate (lossless) sources may stay lossless when that is smaller. */
  lossless: boolean;
}

const names = {
  dct: PDFName.of('DCTDecode'),
  flate: PDFName.of('FlateDecode'),
  image: PDFName.of('Image'),
  deviceRgb: PDFName.of('DeviceRGB'),
  deviceGray: PDFName.of('DeviceGray'),
  iccBased: PDFName.of('ICCBased'),
};

const key = (name: string) => PDFName.of(name);

/** A re-encoded image must save at least this share of its bytes, or the original stays. */
const minimumSaving = 0.1;

/** Colour components of the spaces whose samples can be read as plain gray or RGB; else undefined. */
function channelsOf(context: PDFContext, space: PDFObject | undefined): 1 | 3 | undefined {
  const resolved = context.lookup(space);
  if (resolved === names.deviceGray) return 1;
  if (resolved === names.deviceRgb) return 3;
  if (resolved instanceof PDFArray && resolved.size() === 2 && resolved.lookup(0) === names.iccBased) {
    const profile = resolved.lookup(1);
    const components = profile instanceof PDFRawStream ? profile.dict.lookup(key('N')) : undefined;
    const n = components instanceof PDFNumber ? components.asNumber() : 0;
    return n === 1 || n === 3 ? n : undefined;
  }
  return undefined;
}

function filtersOf(dict: PDFDict): PDFObject[] | undefined {
  const filter = dict.lookup(key('Filter'));
  if (filter === undefined) return [];
  if (filter instanceof PDFName) return [filter];
  if (filter instanceof PDFArray)
    return filter.asArray().map((entry) => dict.context.lookup(entry) as PDFObject);
  return undefined;
}

/** A Decode array that maps samples to themselves ([0 1] per channel) changes nothing; any other does. */
function identityDecode(dict: PDFDict, channels: number): boolean {
  const decode = dict.lookup(key('Decode'));
  if (decode === undefined) return true;
  if (!(decode instanceof PDFArray) || decode.size() !== channels * 2) return false;
  return decode.asArray().every((entry, index) => {
    const value = dict.context.lookup(entry);
    return value instanceof PDFNumber && value.asNumber() === index % 2;
  });
}

const numberIn = (dict: PDFDict, name: string): number | undefined => {
  const value = dict.lookup(key(name));
  return value instanceof PDFNumber ? value.asNumber() : undefined;
};

/**
 * Reads an image XObject's samples when that is safe and lossless to do: 8-bit gray or RGB, as a
 * plain JPEG or as Flate without predictor, without a remapping Decode array, colour-key mask or Matte. Anything
 * else (CMYK, indexed, 1-bit, JBIG2, JPX, CCITT …) is left exactly as it is.
 */
export function readImage(stream: PDFRawStream): DecodableImage | undefined {
  const { dict } = stream;
  const width = numberIn(dict, 'Width');
  const height = numberIn(dict, 'Height');
  if (!width || !height || !Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    return undefined;
  }
  if (width * height > pdfLimits.maxImagePixels) return undefined;
  if (dict.lookup(key('ImageMask')) === PDFBool.True || dict.has(key('Matte'))) return undefined;
  if (dict.lookup(key('Mask')) instanceof PDFArray) return undefined;
  const channels = channelsOf(dict.context, dict.get(key('ColorSpace')));
  if (channels !== undefined && !identityDecode(dict, channels)) return undefined;
  const filters = filtersOf(dict);
  if (channels === undefined || filters?.length !== 1) return undefined;
  if (numberIn(dict, 'BitsPerComponent') !== 8) return undefined;
  const limits = { limitInputPixels: pdfLimits.maxImagePixels, ignoreIcc: true, failOn: 'error' as const };

  if (filters[0] === names.dct) {
    const parms = dict.lookup(key('DecodeParms'));
    if (parms instanceof PDFDict && parms.has(key('ColorTransform'))) return undefined;
    return { width, height, channels, input: sharp(stream.contents, limits), lossless: false };
  }
  if (filters[0] === names.flate) {
    const parms = dict.lookup(key('DecodeParms'));
    const predictor = parms instanceof PDFDict ? numberIn(parms, 'Predictor') : undefined;
    if (parms !== undefined && predictor !== undefined && predictor !== 1) return undefined;
    const expected = width * height * channels;
    let samples: Buffer;
    try {
      samples = inflateSync(stream.contents, { maxOutputLength: expected });
    } catch {
      return undefined; // damaged, or more data than the size says: leave it to the viewer
    }
    if (samples.length !== expected) return undefined;
    return {
      width,
      height,
      channels,
      input: sharp(samples, { raw: { width, height, channels } }),
      lossless: true,
    };
  }
  return undefined;
}

/** The size an image is brought down to: no side longer than the settings allow. */
export function targetSize(
  width: number,
  height: number,
  maxSide: number,
): { width: number; height: number } {
  const longest = Math.max(width, height);
  if (longest <= maxSide) return { width, height };
  const scale = maxSide / longest;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * JPEG as Ghostscript writes it, chroma at half resolution, with mozjpeg's quantisation table 3
 * (tuned on photographs, as ImageMagick's) instead of the JPEG standard's: at the levels' quality
 * numbers it keeps more detail per byte. Trellis quantisation would save about a tenth more at
 * equal fidelity, but at four times the encoding time (about 100 ms instead of 25 ms of CPU for a
 * 2-megapixel page image), which would make the route slower than Ghostscript.
 */
const jpegSettings = (quality: number) =>
  ({ quality, chromaSubsampling: '4:2:0', quantisationTable: 3, optimiseCoding: true }) as const;

interface Encoded {
  bytes: Uint8Array;
  filter: PDFName;
  width: number;
  height: number;
}

async function encode(image: DecodableImage, settings: ImageSettings, asMask: boolean): Promise<Encoded[]> {
  const size = targetSize(image.width, image.height, settings.maxSidePixels);
  const resized = size.width !== image.width || size.height !== image.height;
  let pipeline = image.input.clone();
  if (resized) pipeline = pipeline.resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' });
  pipeline = pipeline.toColourspace(image.channels === 1 ? 'b-w' : 'srgb');
  const candidates: Encoded[] = [];
  if (!asMask) {
    const jpeg = await pipeline.clone().jpeg(jpegSettings(settings.quality)).toBuffer();
    candidates.push({ bytes: jpeg, filter: names.dct, ...size });
  }
  if ((image.lossless && resized) || asMask) {
    const { data, info } = await pipeline.clone().raw().toBuffer({ resolveWithObject: true });
    if (info.channels === image.channels) {
      candidates.push({ bytes: deflateSync(data, { level: 9 }), filter: names.flate, ...size });
    }
  }
  return candidates;
}

/**
 * Re-encodes one image XObject in place when that makes it clearly smaller: downsampled to the
 * settings' size and written as JPEG (or, for soft masks and flat artwork, as Flate). Every entry of
 * the image dictionary but its encoding and size is kept, so colour space, soft mask and intent stay.
 * Returns whether the image was replaced.
 */
export async function recompressImage(
  context: PDFContext,
  stream: PDFRawStream,
  settings: ImageSettings,
  asMask: boolean,
): Promise<PDFRawStream | undefined> {
  const image = readImage(stream);
  if (!image) return undefined;
  let candidates: Encoded[];
  try {
    candidates = await encode(image, settings, asMask);
  } catch {
    return undefined; // sharp could not decode it; viewers may still: keep it unchanged
  }
  const best = candidates.sort((a, b) => a.bytes.length - b.bytes.length)[0];
  if (!best || best.bytes.length > stream.contents.length * (1 - minimumSaving)) return undefined;

  const dict = stream.dict.clone(context);
  for (const name of ['Filter', 'DecodeParms', 'Length']) dict.delete(key(name));
  dict.set(key('Filter'), best.filter);
  dict.set(key('Width'), PDFNumber.of(best.width));
  dict.set(key('Height'), PDFNumber.of(best.height));
  dict.set(key('BitsPerComponent'), PDFNumber.of(8));
  return PDFRawStream.of(dict, best.bytes);
}
