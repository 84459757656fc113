import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { referenceFfmpeg } from '../../support/reference-tools.ts';
import { type Bait, type Corpus, damaged, declaring, type Specimen, specimen } from './specimen.ts';

/* Audio and video specimens: damaged files, playlists dressed as media, and duration and dimension bombs. */

const run = promisify(execFile);

export const audioFormats = ['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a'] as const;
export const videoFormats = ['mp4', 'webm', 'mkv', 'mov', 'avi'] as const;

/** ffmpeg arguments that make a short sound file of each format. */
export const media: Record<string, string[]> = {
  mp3: ['-f', 'lavfi', '-i', 'sine=d=0.5', '-c:a', 'libmp3lame', '-b:a', '32k', '-f', 'mp3'],
  wav: ['-f', 'lavfi', '-i', 'sine=d=0.5:r=8000', '-c:a', 'pcm_u8', '-f', 'wav'],
  ogg: ['-f', 'lavfi', '-i', 'sine=d=0.5:r=48000', '-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg'],
  aac: ['-f', 'lavfi', '-i', 'sine=d=0.5', '-c:a', 'aac', '-b:a', '32k', '-f', 'adts'],
  flac: ['-f', 'lavfi', '-i', 'sine=d=0.5:r=8000', '-c:a', 'flac', '-f', 'flac'],
  m4a: ['-f', 'lavfi', '-i', 'sine=d=0.5', '-c:a', 'aac', '-b:a', '32k', '-f', 'ipod'],
};
const picture = ['-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10:duration=0.5'];
const sound = ['-f', 'lavfi', '-i', 'sine=d=0.5'];
const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
media.mp4 = [...picture, ...sound, ...x264, '-c:a', 'aac', '-shortest', '-f', 'mp4'];
media.mov = [...picture, ...sound, ...x264, '-c:a', 'aac', '-shortest', '-f', 'mov'];
media.mkv = [...picture, ...sound, ...x264, '-c:a', 'libmp3lame', '-shortest', '-f', 'matroska'];
media.webm = [
  ...picture,
  ...sound,
  ...['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '100k', '-c:a', 'libopus'],
  ...['-shortest', '-f', 'webm'],
];
media.avi = [...picture, ...sound, '-c:v', 'mpeg4', '-c:a', 'libmp3lame', '-shortest', '-f', 'avi'];

export async function ffmpegBytes(dir: string, name: string, args: readonly string[]): Promise<Buffer> {
  const path = join(dir, name);
  await run(referenceFfmpeg, ['-v', 'error', '-nostdin', '-y', ...args, path]);
  return readFile(path);
}

/** A WAV header that says 4 GB of 8 kHz mono samples follow (about 149 hours), then 1 kB of them. */
function wavClaimingHours(): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(0xfffffff0, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(0xffffffd0, 40);
  return Buffer.concat([header, Buffer.alloc(1024, 0x80)]);
}

/** A WAV whose format chunk claims 65 535 channels at 4 GHz. */
function wavImpossible(): Buffer {
  const copy = wavClaimingHours();
  copy.writeUInt16LE(65535, 22);
  copy.writeUInt32LE(0xffffffff, 24);
  return copy;
}

function playlists(bait: Bait, format: string): Specimen[] {
  const dressed = (name: string, text: string) =>
    specimen(`${name} named .${format}`, format, Buffer.from(text), 'refused', ['unsupported_input_format']);
  return [
    dressed(
      'HLS playlist of a local file',
      `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile://${bait.secretAudio}\n#EXTINF:1,\n${bait.trackerUrl}\n#EXT-X-ENDLIST\n`,
    ),
    dressed(
      'ffconcat list of a local file',
      `ffconcat version 1.0\nfile '${bait.secretAudio}'\nfile '${bait.trackerUrl}'\n`,
    ),
    dressed(
      'SDP file pointing at loopback',
      'v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 9 RTP/AVP 0\n',
    ),
  ];
}

export async function mediaOriginals(dir: string): Promise<Record<string, Buffer>> {
  const formats = [...audioFormats, ...videoFormats];
  const made = await Promise.all(formats.map((format) => ffmpegBytes(dir, `base.${format}`, media[format]!)));
  return Object.fromEntries(formats.map((format, index) => [format, made[index]!]));
}

export async function mediaSpecimens(dir: string, bait: Bait, base: Record<string, Buffer>): Promise<Corpus> {
  const corpus: Corpus = {};
  [...audioFormats, ...videoFormats].forEach((format, index) => {
    corpus[format] = [...damaged(format, base[format]!, 200 + index), ...playlists(bait, format)];
  });
  const ftyp = base.mp4!.subarray(0, 32);
  corpus.mp4!.push(
    specimen(
      'mp4 file type box followed by an HLS playlist',
      'mp4',
      Buffer.concat([
        ftyp,
        Buffer.from(`\n#EXTM3U\n#EXTINF:1,\nfile://${bait.secretAudio}\n#EXT-X-ENDLIST\n`),
      ]),
      'refused',
    ),
    {
      ...specimen(
        'two-hour video of 720 frames (duration over the free tier)',
        'mp4',
        await ffmpegBytes(dir, 'long.mp4', [
          ...['-f', 'lavfi', '-i', 'color=black:s=16x16:r=0.1', '-t', '7200'],
          ...x264,
          ...['-f', 'mp4'],
        ]),
        'bounded',
      ),
      refusedBy: declaring('media_too_long'),
    },
  );
  corpus.avi!.push(
    specimen(
      'one 8192 × 8192 frame (dimension bomb)',
      'avi',
      await ffmpegBytes(dir, 'huge.avi', [
        ...['-f', 'lavfi', '-i', 'color=black:s=8192x8192:r=1', '-t', '1'],
        ...['-c:v', 'mjpeg', '-q:v', '31', '-f', 'avi'],
      ]),
      'bounded',
    ),
  );
  corpus.wav!.push(
    // ffmpeg measures a WAV by its real size, so the claim alone is harmless: it must just stay harmless.
    specimen('WAV claiming 149 hours in 1 kB', 'wav', wavClaimingHours(), 'bounded'),
    specimen('WAV claiming 65 535 channels at 4 GHz', 'wav', wavImpossible(), 'refused'),
  );
  return corpus;
}
