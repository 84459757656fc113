import MarkdownIt from 'markdown-it';
import { maxTableColumns } from '#shared/documents/browser-limits.ts';
import { ApiError, type ErrorCode } from '#shared/errors.ts';

// CommonMark, plus GitHub-style tables; raw HTML is escaped and shown as text, never rendered.
const markdown = new MarkdownIt('commonmark', { html: false }).enable('table');

/** A plain print stylesheet: the fonts of the fonts layer, readable measure, tables with rules. */
const printStyle = `
  :root { color: #1a1a1a; font: 11pt/1.5 "Liberation Serif", "Noto Serif", "Noto Serif CJK SC", serif; }
  body { margin: 0; }
  h1, h2, h3, h4, h5, h6 { font-family: "Liberation Sans", "Noto Sans", "Noto Sans CJK SC", sans-serif;
    line-height: 1.25; margin: 1.2em 0 0.5em; break-after: avoid; }
  h1 { font-size: 20pt; } h2 { font-size: 16pt; } h3 { font-size: 13pt; } h4, h5, h6 { font-size: 11pt; }
  p, ul, ol, blockquote, pre, table { margin: 0 0 0.8em; }
  a { color: #0b4f9c; }
  code, pre { font-family: "Liberation Mono", "Noto Sans Mono", monospace; font-size: 9.5pt; }
  pre { background: #f4f4f4; padding: 0.6em 0.8em; white-space: pre-wrap; overflow-wrap: anywhere; }
  blockquote { border-left: 3px solid #ccc; margin-left: 0; padding-left: 1em; color: #444; }
  table { border-collapse: collapse; }
  th, td { border: 1px solid #bbb; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
  th { background: #f0f0f0; }
  tr, img, pre, blockquote { break-inside: avoid; }
  img { max-width: 100%; }
  hr { border: 0; border-top: 1px solid #ccc; }
`;

/**
 * The columns of a line that is a table's delimiter row (`|---|:-:|`: only pipes, dashes, colons and
 * spaces), else 0. A table has the columns of its delimiter row: a wider row is cut to them.
 */
function delimiterColumns(line: string): number {
  if (!/^[|:\- \t\r]+$/.test(line) || !line.includes('-') || !line.includes('|')) return 0;
  return line.split('|').filter((cell) => cell.trim() !== '').length;
}

/**
 * Refuses a table wider than maxTableColumns, before parsing: markdown-it spends seconds on the
 * cells of a table 20 000 columns wide, and the browser's layout far longer.
 */
function checkTables(text: string, code: ErrorCode): void {
  for (const line of text.split('\n')) {
    const columns = delimiterColumns(line);
    if (columns > maxTableColumns) {
      throw new ApiError(
        code,
        `A table of the Markdown has ${columns} columns; a table may have at most ${maxTableColumns}.`,
      );
    }
  }
}

/**
 * The Markdown as an HTML fragment, and the plain text of its first heading. A table too wide to
 * render answers `code`: the fault of a downloaded file, or of a field of the request.
 */
export function renderMarkdown(text: string, code: ErrorCode): { html: string; title: string | undefined } {
  checkTables(text, code);
  const tokens = markdown.parse(text, {});
  const heading = tokens.findIndex((token) => token.type === 'heading_open');
  const title =
    heading === -1
      ? undefined
      : tokens[heading + 1]?.children
          ?.filter((child) => child.type === 'text' || child.type === 'code_inline')
          .map((child) => child.content)
          .join('');
  return { html: markdown.renderer.render(tokens, markdown.options, {}), title };
}

/** Text made safe to place in HTML, as the renderer escapes it. */
export const escapeHtml = (text: string) => markdown.utils.escapeHtml(text);

/** The Markdown as a whole HTML document, ready to print. */
export function markdownToHtml(text: string): string {
  const { html } = renderMarkdown(text, 'invalid_source_file');
  return `<!doctype html><html><head><meta charset="utf-8"><style>${printStyle}</style></head><body>${html}</body></html>`;
}
