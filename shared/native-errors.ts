import { ApiError, type ErrorCode } from '#shared/errors.ts';

/**
 * The one table that turns messages of native libraries (sharp/libvips, ffmpeg/ffprobe, pdfium,
 * pdf-lib, qpdf) into the contract's 4xx codes. Each entry is covered by a test. Anything that matches
 * no entry stays an internal error (500), so that a real bug is never disguised as bad input.
 */
interface NativeErrorRule {
  engine: 'sharp' | 'ffmpeg' | 'pdfium' | 'pdf-lib' | 'qpdf';
  pattern: RegExp;
  code: ErrorCode;
  message: string;
}

export const damagedImage =
  'The image could not be decoded: it is damaged, incomplete or not the format its first bytes claim.';
const damagedPdf = 'The PDF could not be read: it is damaged or not a complete PDF file.';
const encryptedPdf = 'The PDF is encrypted (password-protected); remove the protection and send it again.';

export const nativeErrorRules: readonly NativeErrorRule[] = [
  // sharp (libvips): a sniffed image whose header or pixel data cannot be read.
  {
    engine: 'sharp',
    pattern: /^Input (file|buffer) (has corrupt header|contains unsupported image format)/,
    code: 'invalid_source_file',
    message: damagedImage,
  },
  {
    engine: 'sharp',
    pattern:
      /libpng read error|VipsJpeg: (premature end|Corrupt JPEG|Bogus)|gifload: |webp: unable|TIFFRead|tiff2vips: |heif: |svgload: /,
    code: 'invalid_source_file',
    message: damagedImage,
  },
  {
    engine: 'sharp',
    // libwebp refuses the bitstream of a WebP whose header libvips could read.
    pattern: /webp2vips: unable to read pixels/,
    code: 'invalid_source_file',
    message: damagedImage,
  },
  {
    engine: 'sharp',
    // libjpeg meets a frame whose quantization table no DQT segment defined.
    pattern: /VipsJpeg: Quantization table 0x[0-9a-f]{2} was not defined/,
    code: 'invalid_source_file',
    message: damagedImage,
  },
  {
    engine: 'sharp',
    // libjpeg of this build reads 8-bit samples only; 12-bit JPEGs (SOF1, medical and raw-converter output) are valid files.
    pattern: /VipsJpeg: Unsupported JPEG data precision 12/,
    code: 'invalid_source_file',
    message:
      'The JPEG stores 12-bit samples: 12-bit JPEG is not supported; save it as an 8-bit JPEG, or as PNG or TIFF (16-bit).',
  },
  {
    engine: 'sharp',
    pattern: /^Input image exceeds pixel limit/,
    code: 'invalid_source_file',
    message: 'The image declares more pixels than are decoded here (at most 100 megapixels a frame).',
  },
  {
    engine: 'sharp',
    pattern: /^Processed image is too large for the (JPEG|WebP|GIF|HEIF) format/,
    code: 'unsupported_output_format',
    message:
      'The result is larger than the chosen format can hold (WebP: 16383 px a side, AVIF: 16384 here, JPEG and GIF: 65535); ask for a smaller width or height, or choose png or tiff.',
  },
  // Entries are added by each suite, e.g.:
  // { engine: 'sharp', pattern: /Input file has corrupt header/, code: 'invalid_source_file', message: 'The image could not be decoded.' },
  // pdf-lib's parser (run with throwOnInvalidObject) and its object lookups on a file's structure.
  {
    engine: 'pdf-lib',
    pattern:
      /^(Trying to parse invalid object|Failed to parse (PDF document|number)|Parser stalled|No PDF header found)/,
    code: 'invalid_source_file',
    message: damagedPdf,
  },
  { engine: 'pdf-lib', pattern: /^Expected instance of /, code: 'invalid_source_file', message: damagedPdf },
  {
    engine: 'pdf-lib',
    pattern: / stream encoding not supported$/,
    code: 'invalid_source_file',
    message: damagedPdf,
  },
  // pdfium's FPDF_GetLastError codes as @hyzyla/pdfium words them.
  {
    engine: 'pdfium',
    pattern: /^File not in PDF format or corrupted$/,
    code: 'invalid_source_file',
    message: damagedPdf,
  },
  {
    engine: 'pdfium',
    pattern: /^Page not found or content error$/,
    code: 'invalid_source_file',
    message: damagedPdf,
  },
  {
    engine: 'pdfium',
    pattern: /^Password required or incorrect password$/,
    code: 'encrypted_pdf',
    message: encryptedPdf,
  },
  {
    engine: 'pdfium',
    pattern: /^Unsupported security scheme$/,
    code: 'encrypted_pdf',
    message: encryptedPdf,
  },
  // qpdf's own errors (`qpdf: <file>: <what>` on its standard error, exit 2), shared/pdf/qpdf.ts.
  {
    engine: 'qpdf',
    pattern: /: invalid password$/m,
    code: 'invalid_password',
    message: 'The password is wrong: it is neither the user nor the owner password of this PDF.',
  },
  {
    engine: 'qpdf',
    pattern:
      /unsupported encryption filter|encryption SubFilters|encryption dictionary parameters are missing|Unsupported \/R or \/V|unknown encryption filter/,
    code: 'encrypted_pdf',
    message:
      'The PDF is encrypted with a scheme that cannot be read here (only the standard security handler, RC4 and AES, is).',
  },
  {
    engine: 'qpdf',
    pattern: /can't find PDF header|unable to find trailer dictionary|unable to find \/Root dictionary/,
    code: 'invalid_source_file',
    message: damagedPdf,
  },
  // ffmpeg and ffprobe: the last lines of their log (shared/media/run.ts), on a local file read with
  // a forced demuxer, when the tool ran and refused it (shared/media/failures.ts decides that first,
  // and answers 400 for any refusal of ffprobe that no entry explains). Decoding errors inside a
  // stream are not fatal; these are the ones that are.
  {
    engine: 'ffmpeg',
    pattern: /moov atom not found/,
    code: 'invalid_source_file',
    message: 'The source is incomplete: its index (moov atom) is missing; the file was cut short.',
  },
  {
    engine: 'ffmpeg',
    pattern: /Invalid data found when processing input|Failed to read frame size/,
    code: 'invalid_source_file',
    message: 'The source could not be decoded as audio or video: it is damaged or not a complete file.',
  },
  {
    engine: 'ffmpeg',
    pattern: /file:.*: End of file$/m,
    code: 'invalid_source_file',
    message: 'The source ends before its first complete frame.',
  },
  {
    engine: 'ffmpeg',
    pattern: /file:.*: Not yet implemented in FFmpeg, patches welcome$/m,
    code: 'invalid_source_file',
    message: 'The source uses a feature of its format that cannot be read here, or its header is damaged.',
  },
  // ffmpeg's fatal errors about an input stream, on a file ffprobe accepted (this ffmpeg is older
  // than that ffprobe, and decodes where ffprobe reads headers). Each names the input stream: `input
  // stream #0:0`, the decoded data of `stream #0:0`, or `graph_0_in_0_0`, the filter that takes in
  // its frames with its time base, rate and channels; errors about options, encoders or the output
  // name none of these and stay internal (shared/media/failures.ts).
  {
    engine: 'ffmpeg',
    pattern: /Decoder \(codec \S+\) not found for input stream #/,
    code: 'invalid_source_file',
    message:
      'A stream of the source is in a codec that cannot be decoded here, or its header names no codec.',
  },
  {
    engine: 'ffmpeg',
    pattern:
      /Cannot determine format of input stream \d+:\d+ after EOF|Error while processing the decoded data for stream #|\[graph_\d+_in_\d+_\d+ @ [^\]]+\] Error applying options to the filter/,
    code: 'invalid_source_file',
    message:
      'A stream of the source could not be decoded: its header states impossible parameters (channels, sample rate, time base), or no complete frame follows it.',
  },
];

/** Rethrows a native library's error as the matching ApiError, or as it is. */
export function mapNativeError(engine: NativeErrorRule['engine'], error: unknown): never {
  if (error instanceof ApiError) throw error;
  const text = error instanceof Error ? error.message : String(error);
  const rule = nativeErrorRules.find((entry) => entry.engine === engine && entry.pattern.test(text));
  if (rule) throw new ApiError(rule.code, rule.message, { cause: error });
  throw error;
}
