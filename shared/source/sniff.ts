import { open } from 'node:fs/promises';
import { fileTypeFromTokenizer } from 'file-type';
// Imported statically: file-type loads it through a runtime import() that a bundle cannot follow.
import { fromFile } from 'strtok3';
import type { SourceFormat } from '#shared/source/formats.ts';

/** file-type's extension → our format name; container variants fold into the format that reads them. */
const detected: Readonly<Record<string, SourceFormat>> = {
  jpg: 'jpg',
  png: 'png',
  apng: 'png',
  webp: 'webp',
  avif: 'avif',
  heic: 'heic',
  gif: 'gif',
  tif: 'tiff',
  bmp: 'bmp',
  ico: 'ico',
  pdf: 'pdf',
  mp3: 'mp3',
  // MPEG-1/2 audio layers I and II: the mp3 demuxer and ffmpeg's decoders read all three layers.
  mp2: 'mp3',
  mp1: 'mp3',
  wav: 'wav',
  ogg: 'ogg',
  oga: 'ogg',
  opus: 'ogg',
  ogv: 'ogg',
  // Ogg with Speex, with OGM video, or with a first stream file-type has no name for (ogx).
  spx: 'ogg',
  ogm: 'ogg',
  ogx: 'ogg',
  aac: 'aac',
  flac: 'flac',
  m4a: 'm4a',
  m4b: 'm4a',
  f4a: 'm4a',
  mp4: 'mp4',
  m4v: 'mp4',
  f4v: 'mp4',
  webm: 'webm',
  mkv: 'mkv',
  mov: 'mov',
  avi: 'avi',
};

/** How much of the head an SVG check reads: enough for an XML declaration, comments and a doctype. */
const svgHeadBytes = 64 * 1024;

/** Skips what may precede the root element of an XML document: declaration, PIs, comments, doctype. */
function rootElementStart(text: string): number {
  let at = 0;
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at += 1;
    if (text.startsWith('<?', at)) {
      const end = text.indexOf('?>', at + 2);
      if (end < 0) return -1;
      at = end + 2;
    } else if (text.startsWith('<!--', at)) {
      const end = text.indexOf('-->', at + 4);
      if (end < 0) return -1;
      at = end + 3;
    } else if (text.startsWith('<!DOCTYPE', at)) {
      // A doctype may carry an internal subset in brackets that itself contains '>'.
      const bracket = text.indexOf('[', at);
      const close = text.indexOf('>', at);
      if (close < 0) return -1;
      if (bracket >= 0 && bracket < close) {
        const subsetEnd = text.indexOf(']', bracket);
        const end = subsetEnd < 0 ? -1 : text.indexOf('>', subsetEnd);
        if (end < 0) return -1;
        at = end + 1;
      } else {
        at = close + 1;
      }
    } else {
      return at;
    }
  }
}

/** An SVG is UTF-8 XML text whose root element is `<svg>` (optionally namespace-prefixed). */
export function looksLikeSvg(head: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return false;
  }
  if (text.includes('\u0000')) return false;
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const start = rootElementStart(text);
  return start >= 0 && /^<(?:[A-Za-z_][\w.-]*:)?svg[\s/>]/.test(text.slice(start, start + 64));
}

/**
 * PDF readers look for `%PDF-` within the first 1024 bytes (the PDF reference's implementation
 * note), so a mail gateway's banner or a byte-order mark before it still makes a PDF.
 */
const pdfHeaderWindow = 1024;

export function hasPdfHeader(head: Buffer): boolean {
  return head.subarray(0, pdfHeaderWindow).includes('%PDF-');
}

async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The real format of a file, read from its bytes; undefined when it is none we take. */
export async function sniffFormat(path: string): Promise<SourceFormat | undefined> {
  const tokenizer = await fromFile(path);
  const type = await fileTypeFromTokenizer(tokenizer).finally(() => tokenizer.close());
  if (type && type.ext !== 'xml') return detected[type.ext];
  const head = await readHead(path, svgHeadBytes);
  if (looksLikeSvg(head)) return 'svg';
  return hasPdfHeader(head) ? 'pdf' : undefined;
}
