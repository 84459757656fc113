import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyMediaFormat, probeFormat } from '#shared/media/identify.ts';
import { sniffFormat } from '#shared/source/sniff.ts';
import { layerOneSilence, mediaCorpus, speexFixture, writeCorpus } from '../../corpus/media.ts';

let dir = '';
const at = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-identify-'));
  const wanted = new Set(['id3-size-over.mp3', 'id3-size-under.mp3', 'layer2.mp2']);
  await writeCorpus(dir, (scratch) => mediaCorpus(scratch).filter((file) => wanted.has(file.name)));
  await writeFile(at('layer1.mp1'), layerOneSilence(40));
  await writeFile(at('noise.bin'), randomBytes(64 * 1024));
  await writeFile(at('list.m3u8'), `#EXTM3U\n#EXTINF:1,\nfile:${at('layer1.mp1')}\n#EXT-X-ENDLIST\n`);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the byte sniffer', () => {
  it('reads Speex in Ogg as ogg, and MPEG audio layers I and II as mp3', async () => {
    expect(await sniffFormat(fileURLToPath(speexFixture))).toBe('ogg');
    expect(await sniffFormat(at('layer2.mp2'))).toBe('mp3');
    expect(await sniffFormat(at('layer1.mp1'))).toBe('mp3');
  });
});

describe('a media source the sniffer cannot name', () => {
  it.each(['id3-size-over.mp3', 'id3-size-under.mp3'])('%s is named mp3 by ffprobe', async (name) => {
    expect(await sniffFormat(at(name))).toBeUndefined();
    expect(await identifyMediaFormat(at(name))).toBe('mp3');
  });

  it('stays unnamed when ffprobe reads nothing among the allowed demuxers: noise, a playlist', async () => {
    expect(await probeFormat(at('noise.bin'))).toBeUndefined();
    expect(await probeFormat(at('list.m3u8'))).toBeUndefined();
  });
});
