import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasPdfHeader, looksLikeSvg, sniffFormat } from '#shared/source/sniff.ts';

/**
 * The edges of the SVG and PDF checks that run when file-type names nothing: what may come before
 * an SVG's root element (and what is cut short there), and how far into a file a PDF header is
 * looked for.
 */
const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>';
const isSvg = (text: string) => looksLikeSvg(Buffer.from(text));

describe('what may come before the root element of an SVG', () => {
  it('a doctype without an internal subset, when the document holds brackets later on', () => {
    expect(isSvg(`<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg"><text>[1]</text></svg>`)).toBe(true);
  });

  it('a doctype with an internal subset holding ">" characters', () => {
    expect(isSvg(`<!DOCTYPE svg [<!ENTITY a "b">]>${svg}`)).toBe(true);
  });

  it('not a "<?>" that only looks like a closed processing instruction', () => {
    expect(isSvg(`<?>${svg}`)).toBe(false);
  });

  it('not a "<!-->" that only looks like a closed comment', () => {
    expect(isSvg(`<!-->${svg}`)).toBe(false);
  });

  it('not an internal subset that is never closed with "]"', () => {
    expect(isSvg(`<!DOCTYPE svg [<!ENTITY a "b">${svg}`)).toBe(false);
  });

  it('not a doctype that never ends, with or without a subset', () => {
    expect(isSvg('<!DOCTYPE svg')).toBe(false);
    expect(isSvg('<!DOCTYPE svg [ <!ENTITY a "b" ]')).toBe(false);
  });
});

describe('the PDF header window', () => {
  it('finds %PDF- after a banner, up to the 1024th byte and not beyond', () => {
    expect(hasPdfHeader(Buffer.from('X-Mailer banner\r\n%PDF-1.7\n'))).toBe(true);
    expect(hasPdfHeader(Buffer.concat([Buffer.alloc(1019, 0x20), Buffer.from('%PDF-1.7')]))).toBe(true);
    expect(hasPdfHeader(Buffer.concat([Buffer.alloc(1020, 0x20), Buffer.from('%PDF-1.7')]))).toBe(false);
    expect(hasPdfHeader(Buffer.from('no header here'))).toBe(false);
  });
});

describe('sniffFormat when file-type names nothing', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sniff-edges-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const sniff = async (name: string, bytes: string) => {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return sniffFormat(path);
  };

  it('names a PDF whose header follows a banner "pdf"', async () => {
    expect(
      await sniff('banner.pdf', 'Received from a mail gateway\r\n%PDF-1.4\n1 0 obj\n<<>>\nendobj\n'),
    ).toBe('pdf');
  });

  it('names plain text nothing', async () => {
    expect(await sniff('notes.txt', 'just some words, no header\n')).toBeUndefined();
  });
});
