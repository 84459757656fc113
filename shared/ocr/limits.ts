import type { TierName } from '#shared/tiers.ts';

/**
 * What /ocr offers and what bounds one request. Imported by the route row, so nothing here loads
 * an engine.
 */

/** The languages every deployment ships (Tesseract's codes); more come by OCR_LANGUAGES. */
export const shippedLanguages = ['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'nld'] as const;

/** A Tesseract language code: three letters, sometimes a script or variant (`chi_sim`, `deu_latf`). */
export const languageCodePattern = /^[a-z]{3}(_[a-z]+)?$/;

/** Languages one request may combine: each one more makes every page slower. */
export const maxLanguagesPerRequest = 4;

export const ocrOutputFormats = ['json', 'txt', 'pdf'] as const;
export type OcrOutputFormat = (typeof ocrOutputFormats)[number];

/** The media types of the answers, as documented; text answers say their charset. */
export const ocrMediaTypes: Record<OcrOutputFormat, string> = {
  json: 'application/json',
  txt: 'text/plain',
  pdf: 'application/pdf',
};

export const ocrContentTypes: Record<OcrOutputFormat, string> = {
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  pdf: 'application/pdf',
};

/** Pages one request reads, per tier (API.md, "OCR"). */
export const ocrPageLimits: Record<TierName, number> = { free: 5, pro: 50, enterprise: 200 };

/** PDF pages are rendered for Tesseract at this resolution (its models are trained on ~300 dpi text). */
export const ocrDpi = 300;

/**
 * Pixels of one page handed to Tesseract: an A4 page at 600 dpi is 35 million. Larger images are
 * scaled down to it, larger PDF pages rendered at the dpi that fits; Tesseract's memory grows with
 * the pixels (docs/ocr.md: about 70 MB for an A4 page at 300 dpi).
 */
export const maxOcrPixels = 36_000_000;

/** Time Tesseract may take for one page before it is stopped (a dense, noisy 36 MP page takes ~40 s). */
export const ocrPageLimitSeconds = 120;

/**
 * What one page costs end to end in the function (render, OCR, output), measured at 300 dpi on a
 * text-filled A4 page with 2048 MB (docs/benchmarks.md, "OCR"), with room for denser pages. A
 * request whose pages would not fit in its time at this rate is refused before the work.
 */
export const estimatedSecondsPerPage = 4;

/** Time kept back from the request's deadline for writing and sending the answer. */
export const ocrAnswerReserveSeconds = 10;

/** The function's time: Lambda's longest, so that the largest tier's 200 pages fit (~4 s a page). */
export const ocrTimeoutSeconds = 900;

/** Pages of the function's time that fit at the estimated rate. */
export const pagesThatFit = (secondsLeft: number) =>
  Math.max(0, Math.floor((secondsLeft - ocrAnswerReserveSeconds) / estimatedSecondsPerPage));
