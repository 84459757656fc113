import {
  estimatedSecondsPerPage,
  maxOcrPixels,
  ocrDpi,
  ocrMediaTypes,
  ocrPageLimitSeconds,
  ocrPageLimits,
  ocrTimeoutSeconds,
} from '#shared/ocr/limits.ts';
import { ocrBody, ocrResult } from '#shared/ocr/schemas.ts';
import { rangeRules, readRules, samplePdf } from '#shared/routes/pdf.ts';
import { samplePhoto } from '#shared/routes/samples.ts';
import { streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

const engineRules =
  'Text is read by Tesseract (its LSTM engine, the "fast" models of its tessdata, one thread) with automatic ' +
  'page segmentation and orientation detection: a page turned by a quarter or upside down is read upright, and ' +
  'lines a few degrees askew are followed by the layout analysis. ' +
  `Images (${imageInputFormats.join(', ')}) are one page: upright by their EXIF orientation, the first frame of ` +
  'an animation, flattened on white; their own resolution is kept when they state one of 100 dpi or more, else ' +
  `Tesseract estimates it from the text. PDF pages are rendered by PDFium at ${ocrDpi} dpi, as \`/pdf-to-image\` ` +
  'renders them, and read whether or not they already hold text (the answer is what the page shows). A page ' +
  `is read with at most ${maxOcrPixels / 1e6} million pixels (larger images are scaled down, larger pages ` +
  'rendered at the dpi that fits).';

const limitRules =
  `A request reads at most ${ocrPageLimits.free} pages on the free tier, ${ocrPageLimits.pro} on pro and ` +
  `${ocrPageLimits.enterprise} on enterprise: past it the answer is 400 \`validation_failed\` naming the tier ` +
  'that reads that many. A page is read within ' +
  `${ocrPageLimitSeconds} s (or what the request has left), else 400 \`invalid_source_file\` naming the page. ` +
  `Reading takes about ${estimatedSecondsPerPage} s a page: a request whose pages would not be read in the ` +
  `time it has (${ocrTimeoutSeconds} s) is answered 400 \`validation_failed\` naming how many pages fit, before ` +
  'any page is read. Long documents are best sent as async jobs (`callbackUrl`). Languages whose data is not ' +
  'installed on the server, or a missing engine, answer 503 `engine_unavailable`.';

const outputRules =
  '`json` answers `{text, pages:[{number, text, confidence}]}` (`<name>.json`): each page’s text with ' +
  'paragraphs separated by an empty line, and Tesseract’s mean word confidence (0–100); `text` joins the ' +
  'pages with a form feed. `txt` answers the same text (`<name>.txt`, UTF-8). `pdf` answers a searchable PDF ' +
  '(`<name>.pdf`): one page per page read, each the page’s image (JPEG, or G4 for black and white) at its ' +
  'size, with an invisible text layer (render mode 3) in which every word is placed and scaled over its ' +
  'box in the image, so that selecting, copying and searching work in a viewer. The PDF carries no ' +
  'active content.';

export const ocrRoute = defineRoute({
  method: 'POST',
  path: '/ocr',
  function: 'ocr',
  kind: 'file',
  sizing: streamedSizing(2048, ocrTimeoutSeconds, 3),
  jobStore: 'run',
  formats: {
    categories: ['pdf'],
    inputs: [...imageInputFormats, 'pdf'],
    outputs: ['json', 'txt', 'pdf'],
  },
  tierNeeds: fileRouteNeeds,
  tag: 'OCR',
  summary: 'Read the text of images and scanned PDFs (OCR), as JSON, text or a searchable PDF',
  description: `${engineRules} ${readRules} ${rangeRules} ${limitRules} ${outputRules}`,
  body: ocrBody,
  produces: Object.values(ocrMediaTypes),
  example: { sourceUrl: samplePdf, pages: '1', languages: ['eng'] },
  moreExamples: {
    searchablePdf: {
      summary: 'A searchable PDF of a scan in German and English',
      body: { sourceUrl: samplePdf, pages: '1-2', languages: ['deu', 'eng'], outputFormat: 'pdf' },
    },
    photo: {
      summary: 'The text of a photo, as plain text',
      body: { sourceUrl: samplePhoto, outputFormat: 'txt' },
    },
  },
  response: ocrResult,
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_range', 'validation_failed', 'engine_unavailable'],
});

export const ocrRoutes: RouteSpec[] = [ocrRoute];
