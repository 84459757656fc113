import {
  inMiB,
  maxBrowserBytes,
  maxCaptureHeight,
  maxHtmlBytes,
  maxMarkdownBytes,
  maxPageBytes,
  maxPrintPages,
  maxSubresources,
  maxTableColumns,
  screenshotTypes,
} from '#shared/documents/browser-limits.ts';
import {
  htmlToPdfBody,
  markdownToPdfBody,
  urlToPdfBody,
  webScreenshotBody,
} from '#shared/documents/schemas.ts';
import { streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';

const PDF_TYPE = 'application/pdf';
const samplePage = 'https://example.com/';
const sampleMarkdown = 'https://raw.githubusercontent.com/markdown-it/markdown-it/master/README.md';

const pageRules =
  'The page is rendered by Chromium in a private context of its own. Every request it makes (images, ' +
  'styles, fonts, frames, scripts, fetches) follows the source rules: http(s) only, public addresses only, ' +
  'each host resolved once and connected to that address, no redirects; `data:` content stays inline; ' +
  '`file:` and every other scheme, websockets, WebRTC and anything a worker would fetch go nowhere. A ' +
  'subresource that is refused is left out and the page still renders; a navigation of the page itself (a ' +
  'script, a form, a refresh) is refused and the page printed as it stood. At most ' +
  `${maxSubresources} subresources are fetched, and at most the tier’s source size or ${inMiB(maxPageBytes)}, ` +
  'whichever is smaller, in all (the page’s own document included); past it the page renders without the ' +
  `rest. The browser may use ${inMiB(maxBrowserBytes)} of memory: a page that needs more answers 400 ` +
  '`invalid_source_file`. The page gets 30 s to load; one still loading then is printed as it stands. ' +
  'Printing or capturing has 20 s: a page without scripts that takes longer answers 400 ' +
  '`invalid_source_file`, one with scripts (a script that never yields) 504 `render_timeout`. Fonts: Liberation (metric-compatible with Arial, Times New Roman and Courier New) and ' +
  'Noto for Latin, Greek and Cyrillic, Noto CJK for Chinese, Japanese and Korean; the fonts used are ' +
  'embedded in the PDF.';

const pageOptionRules =
  'Page options: `pageSize` (a4 default, letter, legal, a3, a5, or `{width, height}` in points), ' +
  '`landscape`, `margin` in points on every side (default 36; a margin that leaves less than half an inch ' +
  'answers 400 `validation_failed`), `printBackground` (default true), `scale` 0.1–2. The page’s own CSS ' +
  `\`@page\` size does not override \`pageSize\`. A PDF has at most ${maxPrintPages} pages: a longer ` +
  'document answers 400 `invalid_source_file`.';

const urlRule =
  'The page itself is downloaded under the source rules as a source is: a `url` at a loopback, private or ' +
  'reserved address answers 400 `source_blocked_address`, a redirect 400 `source_redirect`; bytes that are ' +
  `an image, a PDF, audio or video answer 400 \`unsupported_input_format\`; a page of more than ${inMiB(maxHtmlBytes)} ` +
  'answers 413 `source_too_large`.';

export const htmlToPdfRoute = defineRoute({
  method: 'POST',
  path: '/html-to-pdf',
  function: 'html-to-pdf',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['document'], inputs: ['html'], outputs: ['pdf'] },
  tierNeeds: fileRouteNeeds,
  tag: 'Documents',
  summary: 'Print an HTML document to PDF',
  description:
    'Give exactly one of `html` (the document itself, at most 1 MiB) and `sourceUrl` (an HTML file of at ' +
    `most ${inMiB(maxHtmlBytes)}, whose relative links resolve against its URL). ${pageRules} ${pageOptionRules} Scripts run only with ` +
    '`javascript: true`. The file is named `document.pdf`, or after the source: `<name>.pdf`.',
  body: htmlToPdfBody,
  produces: [PDF_TYPE],
  example: { sourceUrl: samplePage, pageSize: 'a4', margin: 36 },
  moreExamples: {
    inline: {
      summary: 'The HTML itself, on US Letter, turned, without backgrounds',
      body: {
        html: '<h1>Invoice 42</h1><p>Total: <b>€ 120.00</b></p>',
        pageSize: 'letter',
        landscape: true,
        printBackground: false,
      },
    },
    customSize: {
      summary: 'A custom page of 400 × 600 points, no margin, scaled to 80 %',
      body: { html: '<p>Ticket</p>', pageSize: { width: 400, height: 600 }, margin: 0, scale: 0.8 },
    },
  },
  errors: [...sourceErrors, 'validation_failed', 'render_timeout', 'engine_unavailable'],
});

export const urlToPdfRoute = defineRoute({
  method: 'POST',
  path: '/url-to-pdf',
  function: 'url-to-pdf',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['document'], inputs: ['url'], outputs: ['pdf'] },
  tierNeeds: fileRouteNeeds,
  tag: 'Documents',
  summary: 'Print a web page to PDF',
  description:
    `${urlRule} ${pageRules} ${pageOptionRules} \`waitFor\`: \`load\` (default) prints after the load ` +
    'event, `networkidle` once no request has been open for 500 ms. Scripts run only with `javascript: ' +
    'true`. The file is named after the page: `<name>.pdf`.',
  body: urlToPdfBody,
  produces: [PDF_TYPE],
  example: { url: samplePage },
  moreExamples: {
    scripted: {
      summary: 'A page that draws itself with scripts, printed once the network is quiet',
      body: { url: samplePage, javascript: true, waitFor: 'networkidle', pageSize: 'letter' },
    },
  },
  errors: [...sourceErrors, 'validation_failed', 'render_timeout', 'engine_unavailable'],
});

export const markdownToPdfRoute = defineRoute({
  method: 'POST',
  path: '/markdown-to-pdf',
  function: 'markdown-to-pdf',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['document'], inputs: ['markdown'], outputs: ['pdf'] },
  tierNeeds: fileRouteNeeds,
  tag: 'Documents',
  summary: 'Typeset Markdown as PDF',
  description:
    `Give exactly one of \`markdown\` (at most ${inMiB(maxMarkdownBytes)}) and \`sourceUrl\` (a Markdown file in ` +
    `UTF-8 of at most ${inMiB(maxMarkdownBytes)}: a larger one answers 413 \`source_too_large\`, other bytes 400 ` +
    `\`invalid_source_file\`). CommonMark with tables of at most ${maxTableColumns} columns (a wider one ` +
    'answers 400 `invalid_source_file`), set in a plain print style; raw HTML in the ' +
    'Markdown is shown as text, never rendered, and no script runs. Images it links are fetched under the ' +
    `page rules. ${pageRules} ${pageOptionRules} The file is named \`document.pdf\`, or after the source.`,
  body: markdownToPdfBody,
  produces: [PDF_TYPE],
  example: { sourceUrl: sampleMarkdown, pageSize: 'a5' },
  moreExamples: {
    inline: {
      summary: 'The Markdown itself',
      body: {
        markdown:
          '# Release notes\n\n| Version | Date |\n|---|---|\n| 1.2 | 2026-11-25 |\n\n- Faster *exports*\n',
      },
    },
  },
  errors: [...sourceErrors, 'validation_failed', 'render_timeout', 'engine_unavailable'],
});

export const webScreenshotRoute = defineRoute({
  method: 'POST',
  path: '/web-screenshot',
  function: 'web-screenshot',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['document'], inputs: ['url', 'html'], outputs: ['png', 'jpg', 'webp'] },
  tierNeeds: fileRouteNeeds,
  tag: 'Documents',
  summary: 'Capture a web page or an HTML document as an image',
  description:
    'Give exactly one of `url` and `html`. The viewport is `width` × `height` CSS pixels at a device pixel ' +
    `ratio of 1; \`fullPage\` captures the page down to its end, at most ${maxCaptureHeight} pixels. ` +
    'Scripts run by default for `url` and not for `html` (`javascript` decides). JPEG and WebP are written ' +
    `at quality 85. ${urlRule} ${pageRules} The file is named \`page.<format>\`, or after the page.`,
  body: webScreenshotBody,
  produces: Object.values(screenshotTypes),
  example: { url: samplePage, outputFormat: 'png', width: 1280, height: 800 },
  moreExamples: {
    fullPage: {
      summary: 'The whole page as WebP, at a phone’s width',
      body: { url: samplePage, outputFormat: 'webp', width: 390, height: 844, fullPage: true },
    },
    html: {
      summary: 'An HTML snippet as JPEG',
      body: { html: '<h1 style="color:#0b4f9c">Hello</h1>', outputFormat: 'jpg', width: 640, height: 360 },
    },
  },
  errors: [...sourceErrors, 'validation_failed', 'render_timeout', 'engine_unavailable'],
});

export const documentRoutes: RouteSpec[] = [
  htmlToPdfRoute,
  urlToPdfRoute,
  markdownToPdfRoute,
  webScreenshotRoute,
];
