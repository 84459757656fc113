import { type ErrorCode, HttpError } from '#shared/http/errors.ts';

/**
 * The one table that turns messages of native libraries (sharp/libvips, ffmpeg/ffprobe, pdfium,
 * pdf-lib) into the contract's 4xx codes. Each entry is covered by a test. Anything that matches
 * no entry stays an internal error (500), so that a real bug is never disguised as bad input.
 */
interface NativeErrorRule {
  engine: 'sharp' | 'ffmpeg' | 'pdfium' | 'pdf-lib';
  pattern: RegExp;
  code: ErrorCode;
  message: string;
}

export const nativeErrorRules: readonly NativeErrorRule[] = [
  // Entries are added by each suite, e.g.:
  // { engine: 'sharp', pattern: /Input file has corrupt header/, code: 'invalid_source_file', message: 'The image could not be decoded.' },
];

/** Rethrows a native library's error as the matching HttpError, or as it is. */
export function mapNativeError(engine: NativeErrorRule['engine'], error: unknown): never {
  if (error instanceof HttpError) throw error;
  const text = error instanceof Error ? error.message : String(error);
  const rule = nativeErrorRules.find((entry) => entry.engine === engine && entry.pattern.test(text));
  if (rule) throw new HttpError(rule.code, rule.message, { cause: error });
  throw error;
}
