import { escapeHtml, renderMarkdown } from '#shared/documents/markdown.ts';

/**
 * Markdown (CommonMark and tables) as HTML, by the renderer of /markdown-to-pdf: raw HTML in the
 * Markdown is escaped and shown as text. A whole document gets a title from its first heading.
 */
export function markdownToHtmlText(markdown: string, fullDocument: boolean): string {
  const { html, title } = renderMarkdown(markdown, 'invalid_input');
  if (!fullDocument) return html;
  return (
    '<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n' +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(title ?? 'Document')}</title>\n` +
    `</head>\n<body>\n${html}</body>\n</html>\n`
  );
}
