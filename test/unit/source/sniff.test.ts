import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeSvg, sniffFormat } from '#shared/source/sniff.ts';
import { referenceFfmpeg } from '../../support/reference-tools.ts';

const run = promisify(execFile);
let dir = '';

const at = (name: string): string => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sniff-'));
  const pixels = sharp({ create: { width: 8, height: 8, channels: 3, background: '#c04020' } });
  await Promise.all([
    pixels.clone().png().toFile(at('image.png')),
    pixels.clone().jpeg().toFile(at('image.jpg')),
    pixels.clone().webp().toFile(at('image.webp')),
    pixels.clone().avif({ effort: 0 }).toFile(at('image.avif')),
    pixels.clone().gif().toFile(at('image.gif')),
    pixels.clone().tiff().toFile(at('image.tiff')),
  ]);
  const pdf = await PDFDocument.create();
  pdf.addPage([72, 72]);
  await writeFile(at('doc.pdf'), await pdf.save());
  // One ffmpeg run writes every audio, video and the remaining image containers.
  await run(referenceFfmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.2:sample_rate=8000'],
    ...['-f', 'lavfi', '-i', 'color=c=red:s=16x16:d=0.2:r=5'],
    ...['-map', '0', '-c:a', 'pcm_s16le', at('audio.wav')],
    ...['-map', '0', '-c:a', 'libmp3lame', at('audio.mp3')],
    ...['-map', '0', '-c:a', 'libvorbis', at('audio.ogg')],
    ...['-map', '0', '-c:a', 'libopus', '-ar', '48000', at('audio.opus.ogg')],
    ...['-map', '0', '-c:a', 'flac', at('audio.flac')],
    ...['-map', '0', '-c:a', 'aac', '-f', 'adts', at('audio.aac')],
    ...['-map', '0', '-c:a', 'aac', '-f', 'ipod', at('audio.m4a')],
    ...['-map', '1', '-map', '0', '-c:v', 'libx264', '-c:a', 'aac', at('video.mp4')],
    ...['-map', '1', '-map', '0', '-c:v', 'libvpx', '-c:a', 'libvorbis', at('video.webm')],
    ...['-map', '1', '-map', '0', '-c:v', 'libx264', '-c:a', 'flac', at('video.mkv')],
    ...['-map', '1', '-map', '0', '-c:v', 'libx264', '-c:a', 'aac', at('video.mov')],
    ...['-map', '1', '-map', '0', '-c:v', 'mpeg4', '-c:a', 'libmp3lame', at('video.avi')],
    ...['-map', '1', '-frames:v', '1', '-c:v', 'bmp', at('image.bmp')],
    ...['-map', '1', '-frames:v', '1', '-c:v', 'png', '-pix_fmt', 'rgba', '-f', 'ico', at('image.ico')],
  ]);
  // No HEIC encoder ships with sharp; an ISO-BMFF head with the heic brand is what identifies one.
  const heicHead = Buffer.alloc(64);
  heicHead.writeUInt32BE(24, 0);
  heicHead.write('ftypheic', 4, 'latin1');
  heicHead.write('mif1heic', 16, 'latin1');
  await writeFile(at('image.heic'), heicHead);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sniffFormat reads the real format from the bytes', () => {
  it.each([
    ['image.png', 'png'],
    ['image.jpg', 'jpg'],
    ['image.webp', 'webp'],
    ['image.avif', 'avif'],
    ['image.heic', 'heic'],
    ['image.gif', 'gif'],
    ['image.tiff', 'tiff'],
    ['image.bmp', 'bmp'],
    ['image.ico', 'ico'],
    ['doc.pdf', 'pdf'],
    ['audio.wav', 'wav'],
    ['audio.mp3', 'mp3'],
    ['audio.ogg', 'ogg'],
    ['audio.opus.ogg', 'ogg'],
    ['audio.flac', 'flac'],
    ['audio.aac', 'aac'],
    ['audio.m4a', 'm4a'],
    ['video.mp4', 'mp4'],
    ['video.webm', 'webm'],
    ['video.mkv', 'mkv'],
    ['video.mov', 'mov'],
    ['video.avi', 'avi'],
  ])('%s → %s', async (name, format) => {
    expect(await sniffFormat(at(name))).toBe(format);
  });

  it('ignores the name: a PNG called .pdf is a PNG', async () => {
    await writeFile(at('lying.pdf'), await sharp(at('image.png')).toBuffer());
    expect(await sniffFormat(at('lying.pdf'))).toBe('png');
  });

  it.each([
    ['empty', Buffer.alloc(0)],
    ['plain text', Buffer.from('just some words, nothing to convert\n')],
    ['html', Buffer.from('<!doctype html><html><body><svg></svg></body></html>')],
    ['xml that is not svg', Buffer.from('<?xml version="1.0"?><rss version="2.0"><channel/></rss>')],
    ['a zip archive', Buffer.from('504b0304140000000800', 'hex')],
    ['random bytes', Buffer.from('8f1ad2c4e5b6a79800ff13', 'hex')],
  ])('finds nothing in %s', async (name, bytes) => {
    const path = at(`unknown-${name.replaceAll(' ', '-')}`);
    await writeFile(path, bytes);
    expect(await sniffFormat(path)).toBeUndefined();
  });

  it('finds an SVG whose root follows a long comment and a doctype', async () => {
    const svg = `<?xml version="1.0" encoding="UTF-8"?>\n<!-- ${'x'.repeat(8000)} -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`;
    await writeFile(at('drawing.svg'), svg);
    expect(await sniffFormat(at('drawing.svg'))).toBe('svg');
  });
});

describe('looksLikeSvg', () => {
  it.each([
    '<svg xmlns="http://www.w3.org/2000/svg"/>',
    '<svg>',
    '\uFEFF<svg width="1">',
    '  \n\t<svg\nviewBox="0 0 1 1">',
    '<?xml version="1.0"?><svg/>',
    '<?xml version="1.0"?>\n<?xml-stylesheet href="a.css"?>\n<svg/>',
    '<!-- made by hand --><svg/>',
    '<!DOCTYPE svg [ <!ENTITY a "b>c"> ]><svg/>',
    '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>',
  ])('accepts %j', (text) => {
    expect(looksLikeSvg(Buffer.from(text))).toBe(true);
  });

  it.each([
    '',
    'svg',
    '<svgx/>',
    '<html><svg/></html>',
    '<!-- unterminated <svg/>',
    '<?xml version="1.0"?><svg-like/>',
    'text before <svg/>',
  ])('refuses %j', (text) => {
    expect(looksLikeSvg(Buffer.from(text))).toBe(false);
  });

  it('refuses binary and invalid UTF-8', () => {
    expect(looksLikeSvg(Buffer.concat([Buffer.from('<svg>'), Buffer.from([0])]))).toBe(false);
    expect(looksLikeSvg(Buffer.concat([Buffer.from('<svg '), Buffer.from([0xff, 0xfe])]))).toBe(false);
  });

  it('accepts a head cut in the middle of a multi-byte character', () => {
    const full = Buffer.from('<svg><title>café</title></svg>');
    expect(looksLikeSvg(full.subarray(0, full.indexOf('é') + 1))).toBe(true);
  });
});
