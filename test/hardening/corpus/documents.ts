import { type Corpus, specimen } from './specimen.ts';

/*
 * Sources of the page routes (/html-to-pdf, /markdown-to-pdf by `sourceUrl`): bytes of a format the
 * sniffer knows are refused before the browser starts; Markdown that is not UTF-8 is refused; bytes
 * that are no format at all are text to a browser, so they need only be answered within the limit.
 */

export const documentFormats = ['html', 'markdown'] as const;

const pdfBytes = Buffer.from(
  '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);
const unsupported = ['unsupported_input_format'];

/** Deterministic bytes that no sniffer names, half of them above 0x7f. */
const garbage = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 151 + 7) % 256));
garbage.write('NOIS', 0, 'latin1');

export function documentSpecimens(): Corpus {
  return {
    html: [
      specimen('a PDF named .html', 'html', pdfBytes, 'refused', unsupported),
      specimen('bytes of no format named .html', 'html', garbage, 'bounded'),
    ],
    markdown: [
      specimen('a PDF named .md', 'markdown', pdfBytes, 'refused', unsupported),
      specimen(
        'Markdown that is not UTF-8',
        'markdown',
        Buffer.from([0x23, 0x20, 0x54, 0x69, 0x74, 0x6c, 0x65, 0x0a, 0xff, 0xfe, 0x41]),
        'refused',
        ['invalid_source_file'],
      ),
    ],
  };
}
