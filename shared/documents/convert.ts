import { config } from '#shared/config.ts';
import {
  maxMarkdownBytes,
  maxPageBytes,
  type ScreenshotFormat,
  screenshotTypes,
} from '#shared/documents/browser-limits.ts';
import { printPdf } from '#shared/documents/browser-print.ts';
import { type PageContent, type RenderOptions, withRenderedPage } from '#shared/documents/browser-render.ts';
import { capturePage } from '#shared/documents/browser-screenshot.ts';
import { decodeUtf8, downloadText, webPage } from '#shared/documents/inputs.ts';
import { markdownToHtml } from '#shared/documents/markdown.ts';
import type {
  HtmlToPdfBody,
  MarkdownToPdfBody,
  PageOptions,
  UrlToPdfBody,
  WebScreenshotBody,
} from '#shared/documents/schemas.ts';
import type { FileResult } from '#shared/http/respond.ts';
import type { CallInput } from '#shared/http/stack.ts';

export const PDF_TYPE = 'application/pdf';

type Render = Pick<RenderOptions, 'content' | 'javascript' | 'waitFor' | 'viewport'>;

function renderOptions<Body>(request: CallInput<Body>, render: Render): RenderOptions {
  return {
    ...render,
    maxBytes: Math.min(request.limits.maxSourceBytes, maxPageBytes),
    allowPrivate: config.SOURCE_ALLOW_PRIVATE,
    signal: request.signal,
    deadline: request.deadline,
  };
}

async function toPdf<Body>(
  request: CallInput<Body>,
  render: Render,
  page: PageOptions,
  baseName: string,
): Promise<FileResult> {
  const path = await request.workspace.file('document.pdf');
  await withRenderedPage(renderOptions(request, render), (loaded) => printPdf(loaded, page, path));
  return { path, contentType: PDF_TYPE, fileName: `${baseName}.pdf` };
}

export async function htmlToPdf(request: CallInput<HtmlToPdfBody>): Promise<FileResult> {
  const { body } = request;
  let content: PageContent = { kind: 'html', html: body.html ?? '' };
  let baseName = 'document';
  if (body.sourceUrl !== undefined)
    ({ content, baseName } = await webPage(body.sourceUrl, 'sourceUrl', request));
  return toPdf(request, { content, javascript: body.javascript, waitFor: 'load' }, body, baseName);
}

export async function urlToPdf(request: CallInput<UrlToPdfBody>): Promise<FileResult> {
  const { body } = request;
  const { content, baseName } = await webPage(body.url, 'url', request);
  return toPdf(request, { content, javascript: body.javascript, waitFor: body.waitFor }, body, baseName);
}

export async function markdownToPdf(request: CallInput<MarkdownToPdfBody>): Promise<FileResult> {
  const { body } = request;
  let text = body.markdown ?? '';
  let baseName = 'document';
  if (body.sourceUrl !== undefined) {
    const fetched = await downloadText(body.sourceUrl, 'sourceUrl', request, {
      maxBytes: maxMarkdownBytes,
      what: 'a Markdown file',
    });
    text = decodeUtf8(fetched.body, 'sourceUrl');
    baseName = fetched.baseName;
  }
  const content: PageContent = { kind: 'html', html: markdownToHtml(text) };
  return toPdf(request, { content, javascript: false, waitFor: 'load' }, body, baseName);
}

export async function webScreenshot(request: CallInput<WebScreenshotBody>): Promise<FileResult> {
  const { body } = request;
  const format: ScreenshotFormat = body.outputFormat === 'jpeg' ? 'jpg' : body.outputFormat;
  let content: PageContent = { kind: 'html', html: body.html ?? '' };
  let baseName = 'page';
  if (body.url !== undefined) ({ content, baseName } = await webPage(body.url, 'url', request));
  const javascript = body.javascript ?? body.url !== undefined;
  const viewport = { width: body.width, height: body.height };
  const path = await request.workspace.file(`screenshot.${format}`);
  await withRenderedPage(
    renderOptions(request, { content, javascript, waitFor: body.waitFor, viewport }),
    (loaded) => capturePage(loaded, { format, fullPage: body.fullPage }, path),
  );
  return { path, contentType: screenshotTypes[format], fileName: `${baseName}.${format}` };
}
