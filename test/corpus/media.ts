import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { referenceFfmpeg } from '../support/reference-tools.ts';
import { tone } from '../unit/media/fixtures.ts';

/**
 * The media part of the differential corpus: files of the classes real users send and our own
 * well-formed fixtures never were (an ID3 tag whose size is off, Speex in Ogg, MPEG audio layers I
 * and II, a WAV without samples, clips shorter than a tenth of a second, headers that misstate or
 * lack the duration), with their neighbours (odd sample rates, mono and 5.1, tiny pictures, empty
 * and truncated files). Every file is made here, by ffmpeg or by a few lines that write bytes;
 * reference.ts asks ffprobe which of them it reads.
 */

const run = promisify(execFile);

export interface CorpusFile {
  name: string;
  /** The class of issue 14 (or the neighbour) the file stands for. */
  about: string;
  make: () => Promise<Buffer>;
}

/** ffmpeg's output, written to a pipe: a muxer that cannot seek back leaves totals unwritten. */
async function ffmpeg(args: readonly string[]): Promise<Buffer> {
  const { stdout } = await run(referenceFfmpeg, ['-v', 'error', '-nostdin', ...args, 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** ffmpeg's output written to a file, so that the muxer can go back and write its header's totals. */
async function ffmpegFile(args: readonly string[], scratch: string, extension: string): Promise<Buffer> {
  const path = `${scratch}.${extension}`;
  await run(referenceFfmpeg, ['-v', 'error', '-nostdin', '-y', ...args, path]);
  return readFile(path);
}

const picture = (seconds: number, size = '160x120', rate = 25) => [
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=${size}:rate=${rate}:duration=${seconds}`,
];
const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/** A synchsafe integer (7 bits a byte), as ID3v2 stores its tag size. */
const synchsafe = (value: number) =>
  Buffer.from([(value >> 21) & 0x7f, (value >> 14) & 0x7f, (value >> 7) & 0x7f, value & 0x7f]);

/** An MP3 whose ID3v2 header states `delta` bytes more (or fewer) than the tag holds. */
async function misSizedId3(delta: number, scratch: string): Promise<Buffer> {
  const mp3 = await ffmpegFile(
    [...tone(1), '-c:a', 'libmp3lame', '-b:a', '96k', '-id3v2_version', '3', '-metadata', 'title=Tone'],
    scratch,
    'mp3',
  );
  const declared =
    mp3.readUInt8(6) * 2 ** 21 + mp3.readUInt8(7) * 2 ** 14 + mp3.readUInt8(8) * 2 ** 7 + mp3.readUInt8(9);
  return Buffer.concat([mp3.subarray(0, 6), synchsafe(declared + delta), mp3.subarray(10)]);
}

/**
 * MPEG-1 Layer I at 32 kHz, 32 kbit/s, mono: 48-byte frames whose bit allocation is all zero, which
 * the format defines as silence. No encoder for layer I ships with ffmpeg, and silence needs none.
 */
export function layerOneSilence(frames: number): Buffer {
  const frame = Buffer.alloc(48);
  // Sync, MPEG-1, layer I, no CRC; bit rate index 1 (32 kbit/s), 32 kHz, no padding; mono.
  frame.set([0xff, 0xff, 0x18, 0xc0]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

/** A PCM WAV header that announces `dataBytes` bytes of 16-bit mono at 44.1 kHz. */
export function wavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(44100, 24);
  header.writeUInt32LE(88200, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Where the Speex fixture is kept for machines whose tools cannot write Speex (see makeSpeexOgg). */
export const speexFixture = new URL('../fixtures/files/speex-tone.ogg', import.meta.url);

/**
 * Half a second of a 440 Hz tone as Speex (wideband) in Ogg, made by ffmpeg when its build has the
 * libspeex encoder, else by speexenc (Debian's `speex` package); throws when neither can.
 */
export async function encodeSpeexOgg(scratch: string): Promise<Buffer> {
  const wideband = ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=16000:duration=0.5', '-ac', '1'];
  try {
    return await ffmpeg([...wideband, '-c:a', 'libspeex', '-f', 'ogg']);
  } catch {
    const wav = `${scratch}.wav`;
    await writeFile(wav, await ffmpeg([...wideband, '-c:a', 'pcm_s16le', '-f', 'wav']));
    await run('speexenc', ['--quiet', wav, `${scratch}.spx`]);
    return await readFile(`${scratch}.spx`);
  }
}

/**
 * The Speex file of the corpus: encoded here when a tool can, else the copy that
 * scripts/make-speex-fixture.ts wrote into test/fixtures/files.
 */
export async function makeSpeexOgg(scratch: string): Promise<Buffer> {
  return encodeSpeexOgg(scratch).catch(() => readFile(speexFixture));
}

/**
 * A Matroska file whose Duration element (a float64, in milliseconds at the default time scale)
 * is overwritten: a recorder's header that overstates the clip.
 */
export function withMatroskaDuration(bytes: Buffer, milliseconds: number): Buffer {
  const copy = Buffer.from(bytes);
  const at = copy.indexOf(Buffer.from([0x44, 0x89, 0x88]));
  if (at < 0) throw new Error('no 8-byte Duration element');
  copy.writeDoubleBE(milliseconds, at + 3);
  return copy;
}

/** Cuts a file to a share of its length: a download that broke off, a recorder that died. */
const cut = (bytes: Buffer, share: number) => bytes.subarray(0, Math.floor(bytes.length * share));

/** Neighbours that only the large run makes, to keep `npm test` small. */
const largeRunOnly: ReadonlySet<string> = new Set([
  'short.mp4',
  'mono-11025.mp3',
  'surround-5.1.flac',
  'headers-only.ogg',
]);

/** Every class of issue 14's media items with a few neighbours; small and quick to make, run by `npm test`. */
export function mediaCorpus(scratch: (name: string) => string): CorpusFile[] {
  return classesAndNeighbours(scratch).filter((file) => !largeRunOnly.has(file.name));
}

/** Every class of issue 14's media items and all their neighbours. */
function classesAndNeighbours(scratch: (name: string) => string): CorpusFile[] {
  const file = (name: string, about: string, make: (scratchPath: string) => Promise<Buffer>): CorpusFile => ({
    name,
    about,
    make: () => make(scratch(name)),
  });
  return [
    file('id3-size-over.mp3', 'an ID3v2 tag whose size field says 300 bytes too many', (s) =>
      misSizedId3(300, s),
    ),
    file('id3-size-under.mp3', 'an ID3v2 tag whose size field says 30 bytes too few', (s) =>
      misSizedId3(-30, s),
    ),
    file('speex.ogg', 'Ogg with Speex audio', makeSpeexOgg),
    file('layer2.mp2', 'MPEG-1 Layer II audio', () =>
      ffmpeg([...tone(1), '-c:a', 'mp2', '-b:a', '128k', '-f', 'mp2']),
    ),
    file('layer1.mp1', 'MPEG-1 Layer I audio', async () => layerOneSilence(120)),
    file('no-samples.wav', 'a WAV with a valid header and zero samples', async () => wavHeader(0)),
    file('short.mp4', 'a video of 0.07 s', (s) =>
      ffmpegFile([...picture(1), '-t', '0.07', ...x264, '-f', 'mp4'], s, 'mp4'),
    ),
    file('short.mkv', 'a video of 0.07 s whose header says 5 s', async (s) =>
      withMatroskaDuration(
        await ffmpegFile([...picture(1), '-t', '0.07', ...x264, '-f', 'matroska'], s, 'mkv'),
        5000,
      ),
    ),
    file('vp8-8x8.webm', 'an 8×8 VP8 clip of 0.07 s whose header says 5 s', async (s) =>
      withMatroskaDuration(
        await ffmpegFile(
          [...picture(1, '8x8'), '-t', '0.07', '-c:v', 'libvpx', '-b:v', '50k', '-f', 'webm'],
          s,
          'webm',
        ),
        5000,
      ),
    ),
    file('vbr-no-xing.mp3', 'a VBR MP3 without a Xing frame (header duration from the first frame)', (s) =>
      ffmpegFile(
        [
          '-f',
          'lavfi',
          '-i',
          "aevalsrc='if(lt(t,0.3),0,random(0)*2-1)':s=44100:d=3",
          '-c:a',
          'libmp3lame',
          '-q:a',
          '0',
          '-write_xing',
          '0',
          '-f',
          'mp3',
        ],
        s,
        'mp3',
      ),
    ),
    file('cut-xing.mp3', 'an MP3 cut off after its Xing frame stated the full length', async (s) =>
      cut(await ffmpegFile([...tone(4), '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'], s, 'mp3'), 0.5),
    ),
    file('no-duration.webm', 'a WebM without a duration (written as a stream)', () =>
      ffmpeg([
        ...picture(1.5),
        ...tone(1.5, 48000),
        '-c:v',
        'libvpx',
        '-b:v',
        '100k',
        '-c:a',
        'libopus',
        '-f',
        'webm',
      ]),
    ),
    file('no-total.flac', 'a FLAC without a total-samples field', () =>
      ffmpeg([...tone(2), '-c:a', 'flac', '-f', 'flac']),
    ),
    // neighbours
    file('mono-11025.mp3', 'MPEG-2.5 audio at 11 025 Hz, mono', () =>
      ffmpeg([...tone(1, 11025, 'mono'), '-c:a', 'libmp3lame', '-b:a', '32k', '-f', 'mp3']),
    ),
    file('aac-7350.m4a', 'AAC at 7 350 Hz', (s) =>
      ffmpegFile([...tone(1, 7350, 'mono'), '-c:a', 'aac', '-b:a', '16k', '-f', 'ipod'], s, 'm4a'),
    ),
    file('surround-5.1.flac', 'FLAC in 5.1', (s) =>
      ffmpegFile([...tone(1, 48000, '5.1'), '-c:a', 'flac'], s, 'flac'),
    ),
    file('tiny-2x2.mp4', 'an H.264 picture of 2×2 pixels', (s) =>
      ffmpegFile([...picture(0.5, '2x2'), ...x264, '-f', 'mp4'], s, 'mp4'),
    ),
    file('headers-only.ogg', 'an Ogg Opus stream with no audio packet', () =>
      ffmpeg([...tone(1, 48000), '-frames:a', '0', '-c:a', 'libopus', '-f', 'ogg']),
    ),
    file('header-only.wav', 'a WAV header that announces a second of samples and holds none', async () =>
      wavHeader(88200),
    ),
    file('cut.webm', 'a WebM cut off in its first cluster', async () =>
      cut(await ffmpeg([...picture(1), '-c:v', 'libvpx', '-b:v', '200k', '-f', 'webm']), 0.3),
    ),
  ];
}

/**
 * Sources whose header misstates their length around the free tier's 120 s: the limit must be
 * held to what the packets hold. Silence at 8 kHz keeps them small.
 */
export function tierLimitCorpus(scratch: (name: string) => string): CorpusFile[] {
  const silence = (seconds: number) => [
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=8000:cl=mono',
    '-t',
    String(seconds),
  ];
  return [
    {
      name: 'understated.mp3',
      about: 'a VBR MP3 without Xing frame of 125 s whose header estimates about 78 s',
      make: () =>
        ffmpegFile(
          [
            '-f',
            'lavfi',
            '-i',
            "aevalsrc='if(lt(t,1),random(0)*2-1,0)':s=8000:d=125",
            '-c:a',
            'libmp3lame',
            '-q:a',
            '0',
            '-write_xing',
            '0',
            '-f',
            'mp3',
          ],
          scratch('understated'),
          'mp3',
        ),
    },
    {
      name: 'overstated.mp3',
      about: 'an MP3 of 200 s cut after 10 s, its Xing frame still saying 200 s',
      make: async () =>
        (
          await ffmpegFile(
            [...silence(200), '-c:a', 'libmp3lame', '-b:a', '8k', '-f', 'mp3'],
            scratch('overstated'),
            'mp3',
          )
        ).subarray(0, 10_000),
    },
    {
      name: 'long-no-total.flac',
      about: 'a FLAC of 125 s without a total-samples field',
      make: () => ffmpeg([...silence(125), '-c:a', 'flac', '-f', 'flac']),
    },
  ];
}

/** The larger run (scripts/media-corpus.ts): more rates, layouts, sizes and cuts of each class. */
export function largeMediaCorpus(scratch: (name: string) => string): CorpusFile[] {
  const extra: CorpusFile[] = [];
  for (const rate of [8000, 11025, 22050, 32000, 48000]) {
    extra.push({
      name: `tone-${rate}.wav`,
      about: `PCM at ${rate} Hz`,
      make: () => ffmpeg([...tone(0.5, rate, 'mono'), '-c:a', 'pcm_s16le', '-f', 'wav']),
    });
  }
  for (const layout of ['mono', 'stereo', '5.1', '7.1']) {
    extra.push({
      name: `opus-${layout}.ogg`,
      about: `Opus in ${layout}`,
      make: () => ffmpeg([...tone(0.5, 48000, layout), '-c:a', 'libopus', '-f', 'ogg']),
    });
  }
  for (const size of ['16x16', '318x2', '2x318']) {
    extra.push({
      name: `vp9-${size}.webm`,
      about: `VP9 at ${size}`,
      make: () =>
        ffmpeg([...picture(0.3, size), '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-f', 'webm']),
    });
  }
  for (const share of [0.1, 0.5, 0.9]) {
    extra.push({
      name: `cut-${share}.mp4`,
      about: `an MP4 cut at ${share * 100} %`,
      make: async () =>
        cut(
          await ffmpegFile(
            [...picture(1), ...tone(1), ...x264, '-c:a', 'aac'],
            scratch(`cut-${share}`),
            'mp4',
          ),
          share,
        ),
    });
    extra.push({
      name: `cut-${share}.flac`,
      about: `a FLAC cut at ${share * 100} %`,
      make: async () => cut(await ffmpeg([...tone(1), '-c:a', 'flac', '-f', 'flac']), share),
    });
  }
  extra.push({
    name: 'layer2-mono-24k.mp2',
    about: 'MPEG-2 Layer II at 24 kHz, mono',
    make: () => ffmpeg([...tone(1, 24000, 'mono'), '-c:a', 'mp2', '-b:a', '64k', '-f', 'mp2']),
  });
  return [...classesAndNeighbours(scratch), ...extra];
}

/** Writes a corpus into `dir`; each file's path by name. */
export async function writeCorpus(
  dir: string,
  corpus: (scratch: (name: string) => string) => CorpusFile[],
): Promise<Array<CorpusFile & { path: string }>> {
  await mkdir(join(dir, 'scratch'), { recursive: true });
  const files = corpus((name) => join(dir, 'scratch', name));
  const written: Array<CorpusFile & { path: string }> = [];
  for (const entry of files) {
    const path = join(dir, entry.name);
    await writeFile(path, await entry.make());
    written.push({ ...entry, path });
  }
  return written;
}
