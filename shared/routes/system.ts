import * as z from 'zod';
import { bufferedSizing } from '#shared/routes/sizing.ts';
import {
  defineRoute,
  type FormatCategoryName,
  formatCategoryNames,
  type RouteSpec,
} from '#shared/routes/types.ts';
import { formatAliases } from '#shared/source/formats.ts';
import { tierNames } from '#shared/tiers.ts';

const engineVersion = (engine: string) =>
  z
    .string()
    .describe(
      `The ${engine} version the routes run, or \`unavailable\` when it is missing or broken here (its routes then answer 503 engine_unavailable).`,
    );

export const statusView = z.object({
  status: z.literal('ok'),
  version: z.string().describe('The version of the deployed service.'),
  time: z.iso.datetime().describe('The server time, UTC.'),
  tier: z.enum(tierNames).describe("The caller's tier: free without x-api-key, else the key's."),
  limits: z
    .object({
      requestsPerMinute: z
        .number()
        .int()
        .describe("The caller's requests per minute (per key, or per client IP)."),
      maxSourceBytes: z.number().int().describe('The largest source a file route downloads.'),
      maxMediaSeconds: z.number().int().describe('The longest audio or video a media route takes.'),
    })
    .describe("The caller's limits, from its tier."),
  engines: z.object({
    sharp: engineVersion('sharp'),
    libvips: engineVersion('libvips'),
    ffmpeg: engineVersion('ffmpeg'),
    pdfium: engineVersion('@hyzyla/pdfium (PDFium)'),
    chromium: engineVersion('Chromium (HTML, web page and Markdown routes)'),
    libreoffice: engineVersion('LibreOffice (/office-to-pdf)'),
    tesseract: engineVersion('Tesseract (/ocr)'),
    node: z.string().describe('The Node.js version.'),
  }),
});
export type StatusView = z.infer<typeof statusView>;

const formatList = z.array(z.string());

const formatOperation = z.object({
  path: z.string().describe('The route, e.g. `/image-convert`.'),
  inputs: formatList.describe(
    'Input formats (sniffed from the bytes); `text`: a string field of the request.',
  ),
  outputs: formatList.describe(
    'What it answers: formats, `zip` for several files, `json` for a JSON answer.',
  ),
  options: z
    .record(z.string(), z.array(z.union([z.string(), z.number()])))
    .optional()
    .describe('Enumerated body fields by name, with every value the route accepts.'),
});

const formatCategory = z.object({
  inputs: formatList,
  outputs: formatList,
  operations: z.array(formatOperation),
});

export const formatsView = z.object({
  categories: z.object(
    Object.fromEntries(formatCategoryNames.map((name) => [name, formatCategory])) as Record<
      FormatCategoryName,
      typeof formatCategory
    >,
  ),
  aliases: z
    .object(
      Object.fromEntries(Object.keys(formatAliases).map((alias) => [alias, z.string()])) as Record<
        keyof typeof formatAliases,
        z.ZodString
      >,
    )
    .describe('Alternative spellings accepted in requests, by their canonical name.'),
});

export const statusRoute = defineRoute({
  method: 'GET',
  path: '/status',
  function: 'status',
  kind: 'system',
  sizing: bufferedSizing(256, false),
  tag: 'System',
  summary: 'Service health, the caller’s tier and limits, engine versions',
  description:
    'Optional auth headers are checked as on every route, so this is also a way to test a key. Engine versions are read once per container; an engine that is missing, fails or does not tell its version in time (10 s; 20 s for LibreOffice) shows `unavailable`, and the routes that need it answer 503 `engine_unavailable` naming it.',
  response: statusView,
  errors: [],
});

export const formatsRoute = defineRoute({
  method: 'GET',
  path: '/formats',
  function: 'formats',
  kind: 'system',
  sizing: bufferedSizing(256, false),
  tag: 'System',
  summary: 'What converts to what',
  description:
    'Per category (image, pdf, document, audio, video, text, crypto): the input formats, output formats and operations, each operation with its own inputs, outputs and options: every enumerated field of its request body with the values it accepts, in canonical spelling. `/media-info` is listed under audio and video; the documents-to-PDF routes and `/web-screenshot` under document.',
  response: formatsView,
  errors: [],
});

export const openapiRoute = defineRoute({
  method: 'GET',
  path: '/openapi.yaml',
  function: 'openapi',
  quotaFree: true,
  kind: 'system',
  sizing: bufferedSizing(256, false),
  tag: 'System',
  summary: 'This OpenAPI 3.1 document',
  description: 'The description of every route of the service, as YAML. Not counted against the rate limit.',
  produces: ['application/yaml'],
  errors: [],
});

export const docsRoute = defineRoute({
  method: 'GET',
  path: '/docs',
  function: 'docs',
  quotaFree: true,
  kind: 'system',
  sizing: bufferedSizing(256, false),
  tag: 'System',
  summary: 'Interactive API reference',
  description:
    'A Swagger UI page rendered from `/openapi.yaml`, one self-contained page served by the service itself (no CDN; Swagger UI inline), with an `ETag` for revalidation. Its "Try it out" calls the deployment that serves the page; file answers are shown (images, audio, video) and offered for download under their own name. Neither the page nor `/openapi.yaml` is counted against the rate limit.',
  produces: ['text/html'],
  errors: [],
});

export const docsAssetsRoute = defineRoute({
  method: 'GET',
  path: '/docs/{asset}',
  function: 'docs/assets',
  quotaFree: true,
  kind: 'system',
  sizing: bufferedSizing(256, false),
  tag: 'System',
  summary: 'Stylesheet and script of the API reference page',
  description:
    '`asset` is `swagger-ui.css` or `swagger-ui-bundle.js` (Swagger UI, from the swagger-ui-dist package); anything else → 404 not_found. Cached for a day; not counted against the rate limit. The `/docs` page itself holds both inline.',
  produces: ['text/css', 'text/javascript'],
  errors: ['not_found'],
});

export const systemRoutes: RouteSpec[] = [
  statusRoute,
  formatsRoute,
  openapiRoute,
  docsRoute,
  docsAssetsRoute,
];
