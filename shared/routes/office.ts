import {
  maxCompoundFileBytes,
  maxConversionMs,
  officeFormats,
  zipBounds,
} from '#shared/documents/office-limits.ts';
import { officeToPdfBody } from '#shared/documents/office-schema.ts';
import { streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';

const sampleDocx = 'https://calibre-ebook.com/downloads/demos/demo.docx';
const MiB = 1024 * 1024;

const officeRules =
  `The source is downloaded under the source rules and its format is read from its bytes (${officeFormats.join(', ')}): ` +
  'OOXML and OpenDocument files by the parts that name their kind, legacy Word, Excel and PowerPoint files ' +
  'by the streams of their compound file, RTF by its `{\\rtf` header; the URL’s extension and the server’s ' +
  'content type are not consulted. Macro-enabled files (docm, xlsm, pptm), templates, other ZIP archives and ' +
  'anything else answer 400 `unsupported_input_format`. Before LibreOffice opens a ZIP-based document, its ' +
  `parts, and those of the archives it embeds (${zipBounds.maxNestingDepth} levels deep), are counted and ` +
  `inflated into a counter: more than ${zipBounds.maxEntries} parts, more than ` +
  `${zipBounds.maxUncompressedBytes / MiB} MiB inflated in all, a part over ${zipBounds.ratioFloorBytes / MiB} MiB ` +
  `inflating more than ${zipBounds.maxEntryRatio} times its stored size, or a part inflating past the size its ` +
  'directory declares answer 400 `invalid_source_file`, as do truncated or damaged files, password-protected ' +
  `documents, embedded archives over ${zipBounds.maxNestedArchiveBytes / MiB} MiB or unreadable, and legacy ` +
  `files over ${maxCompoundFileBytes / MiB} MiB.`;

const conversionRules =
  'Converted by LibreOffice with a fresh profile per request: macros are never run, links to other files, ' +
  'linked images and attached templates are not fetched (nothing leaves the function), and Carlito and ' +
  'Caladea stand in for Calibri and Cambria with the same metrics. A document LibreOffice cannot read answers ' +
  `400 \`invalid_source_file\`; one whose conversion takes more than ${maxConversionMs / 1000} s (or what the ` +
  'request has left) answers 504 `render_timeout`. The file is named after the source: `<name>.pdf`.';

export const officeToPdfRoute = defineRoute({
  method: 'POST',
  path: '/office-to-pdf',
  function: 'office-to-pdf',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['document'], inputs: officeFormats, outputs: ['pdf'] },
  tierNeeds: fileRouteNeeds,
  tag: 'Documents',
  summary: 'Convert an office document (Word, Excel, PowerPoint, OpenDocument, RTF) to PDF',
  description: `${officeRules} ${conversionRules}`,
  body: officeToPdfBody,
  produces: ['application/pdf'],
  example: { sourceUrl: sampleDocx },
  errors: [...sourceErrors, 'validation_failed', 'render_timeout', 'engine_unavailable'],
});

export const officeRoutes: RouteSpec[] = [officeToPdfRoute];
