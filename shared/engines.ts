import { ApiError } from '#shared/errors.ts';

/**
 * The native engines the routes run that a machine may lack (the libraries bundled with the code,
 * sharp and PDFium, come with `npm ci`). A route whose engine is missing or broken answers 503
 * `engine_unavailable` naming it, `/status` shows it as `"unavailable"`, and `npm start` says at
 * start which are missing and how to get them.
 */
export const externalEngines = {
  ffmpeg: {
    label: 'ffmpeg',
    routes: 'audio and video routes',
    howToGet:
      "npm run system-tools installs Debian's ffmpeg, npm run layer:ffmpeg builds the layer's own; or set FFMPEG_PATH and FFPROBE_PATH",
  },
  chromium: {
    label: 'Chromium',
    routes: 'HTML, web page and Markdown routes',
    howToGet: 'npm run layer:chromium unpacks the packed Chromium; or set CHROMIUM_EXECUTABLE',
  },
  qpdf: {
    label: 'qpdf',
    routes: 'PDF routes given a password, /pdf-protect and /pdf-unlock',
    howToGet:
      "npm run system-tools installs Debian's qpdf, npm run layer:qpdf builds the layer's own; or set QPDF_PATH",
  },
  fonts: {
    label: 'The fonts layer',
    routes: 'PDF routes that draw text (/pdf-watermark, /pdf-page-numbers, /pdf-form-fill, /pdf-flatten)',
    howToGet: 'npm run layer:fonts builds it; or set PDF_FONTS_DIR to a folder holding its files',
  },
  libreoffice: {
    label: 'LibreOffice',
    routes: '/office-to-pdf',
    howToGet: 'npm run system-tools installs it (Debian package libreoffice); or set OFFICE_BINARY',
  },
  tesseract: {
    label: 'Tesseract',
    routes: '/ocr',
    howToGet:
      "npm run system-tools installs Debian's tesseract-ocr and its language packages; on Lambda the tesseract layer (npm run layer:tesseract); or set TESSERACT_PATH and TESSDATA_PREFIX",
  },
} as const;

export type ExternalEngine = keyof typeof externalEngines;

/** What `/status` shows for an engine that is missing or does not answer. */
export const UNAVAILABLE = 'unavailable';

/** The answer of a route whose engine cannot be run here: 503, naming the engine. */
export function engineUnavailable(engine: ExternalEngine, cause?: unknown): ApiError {
  const { label } = externalEngines[engine];
  return new ApiError(
    'engine_unavailable',
    `${label} is not available on this server, so this route cannot run now; GET /status lists the engines. The operator installs it (${externalEngines[engine].howToGet}).`,
    { cause },
  );
}
