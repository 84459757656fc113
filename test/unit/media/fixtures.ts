import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { referenceFfmpeg, referenceFfprobe } from '../../support/reference-tools.ts';

const run = promisify(execFile);

/**
 * Tiny sources made with ffmpeg's own test generators (testsrc2, sine), so that every test can say
 * exactly what went in: 160×120 at 25 fps, 440 Hz, about one second.
 */
const video = (seconds: number, size = '160x120') => [
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=${size}:rate=25:duration=${seconds}`,
];
/** ffmpeg input arguments for a 440 Hz sine tone. */
export const tone = (seconds: number, rate = 44100, layout = 'stereo') => [
  '-f',
  'lavfi',
  '-i',
  `sine=frequency=440:sample_rate=${rate}:duration=${seconds}`,
  '-af',
  `aformat=channel_layouts=${layout}`,
];

const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '30', '-pix_fmt', 'yuv420p'];
const vp9 = ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k'];

/** What each fixture is made of; the codecs the tests expect to see copied. */
export const recipes = {
  // audio
  mp3: [...tone(1), '-c:a', 'libmp3lame', '-b:a', '96k', '-f', 'mp3'],
  wav: [...tone(1), '-c:a', 'pcm_s16le', '-f', 'wav'],
  ogg: [...tone(1, 48000), '-c:a', 'libopus', '-b:a', '64k', '-f', 'ogg'],
  aac: [...tone(1), '-c:a', 'aac', '-b:a', '96k', '-f', 'adts'],
  flac: [...tone(1), '-c:a', 'flac', '-f', 'flac'],
  m4a: [...tone(1), '-c:a', 'aac', '-b:a', '96k', '-f', 'ipod'],
  // video
  mp4: [...video(1), ...tone(1), ...x264, '-c:a', 'aac', '-b:a', '64k', '-f', 'mp4'],
  webm: [...video(1), ...tone(1, 48000), ...vp9, '-c:a', 'libopus', '-b:a', '48k', '-f', 'webm'],
  mkv: [...video(1), ...tone(1), ...x264, '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'matroska'],
  mov: [...video(1), ...tone(1), ...x264, '-c:a', 'aac', '-b:a', '64k', '-f', 'mov'],
  avi: [
    ...video(1),
    ...tone(1),
    '-c:v',
    'mpeg4',
    '-q:v',
    '6',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '64k',
    '-f',
    'avi',
  ],
  // special cases
  silentVideo: [...video(1), ...x264, '-f', 'mp4'],
  /** Just over the free tier's 120 s, made cheap: silence at 8 kHz, 8 kbit/s. */
  longAudio: [
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=8000:cl=mono',
    '-t',
    '121',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '8k',
    '-f',
    'mp3',
  ],
  /** Two seconds, for runs that must still be busy when they are stopped. */
  twoSeconds: [...video(2), ...tone(2), ...x264, '-c:a', 'aac', '-f', 'mp4'],
  /** An odd-sized picture (testsrc2 itself only makes even sizes), to prove even dimensions. */
  wide: [
    ...video(1, '320x180'),
    '-vf',
    'scale=321:181',
    ...x264.slice(0, 6),
    '-pix_fmt',
    'yuv444p',
    '-f',
    'matroska',
  ],
} as const;

/** Fixtures made from another one; the rotation flag survives only a stream copy in this ffmpeg. */
const derived = {
  /** A phone video: stored 160×120, shown turned a quarter. */
  rotated: { from: 'silentVideo', args: ['-c', 'copy', '-metadata:s:v:0', 'rotate=90', '-f', 'mp4'] },
} as const;

export type Recipe = keyof typeof recipes | keyof typeof derived;

export class MediaFixtures {
  #dir = '';
  readonly #made = new Map<Recipe, string>();

  async open(): Promise<this> {
    this.#dir = await mkdtemp(join(tmpdir(), 'media-fixtures-'));
    return this;
  }

  /** The path of a fixture, generated on first use. */
  async path(recipe: Recipe): Promise<string> {
    const made = this.#made.get(recipe);
    if (made) return made;
    const path = join(this.#dir, recipe);
    const args =
      recipe in derived
        ? [
            '-i',
            await this.path(derived[recipe as keyof typeof derived].from),
            ...derived[recipe as keyof typeof derived].args,
          ]
        : recipes[recipe as keyof typeof recipes];
    await run(referenceFfmpeg, ['-v', 'error', '-nostdin', '-y', ...args, path]);
    this.#made.set(recipe, path);
    return path;
  }

  async bytes(recipe: Recipe): Promise<Buffer> {
    return readFile(await this.path(recipe));
  }

  /** Writes bytes (e.g. an answer's body) to a file the probe helpers can read. */
  async save(name: string, bytes: Buffer | string): Promise<string> {
    const path = join(this.#dir, name);
    await writeFile(path, bytes);
    return path;
  }

  async close(): Promise<void> {
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true });
  }
}

export interface ProbedStream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  sample_rate?: string;
  channels?: number;
  avg_frame_rate?: string;
}

export interface Probed {
  formatName: string;
  duration: number;
  streams: ProbedStream[];
  video?: ProbedStream;
  audio?: ProbedStream;
}

/** What ffprobe reads back from a result, with nothing forced: the file must stand on its own. */
export async function probe(path: string): Promise<Probed> {
  const { stdout } = await run(referenceFfprobe, [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    path,
  ]);
  const parsed = JSON.parse(stdout) as {
    format: { format_name: string; duration?: string };
    streams: ProbedStream[];
  };
  return {
    formatName: parsed.format.format_name,
    duration: Number(parsed.format.duration ?? Number.NaN),
    streams: parsed.streams,
    video: parsed.streams.find((stream) => stream.codec_type === 'video'),
    audio: parsed.streams.find((stream) => stream.codec_type === 'audio'),
  };
}

/** The sizes of a stream's packets: equal lists mean the stream was copied, not re-encoded. */
export async function packetSizes(path: string, stream: 'v:0' | 'a:0'): Promise<number[]> {
  const { stdout } = await run(referenceFfprobe, [
    '-v',
    'error',
    '-select_streams',
    stream,
    '-show_entries',
    'packet=size',
    '-of',
    'csv=p=0',
    path,
  ]);
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => Number.parseInt(line, 10));
}

/**
 * The types of an MP4/QuickTime file's top-level boxes, in file order. A file plays progressively
 * (faststart) when `moov`, the index, comes before `mdat`, the media data.
 */
export async function topLevelBoxes(path: string): Promise<string[]> {
  const bytes = await readFile(path);
  const boxes: string[] = [];
  let offset = 0;
  while (offset + 8 <= bytes.length) {
    const size32 = bytes.readUInt32BE(offset);
    boxes.push(bytes.toString('latin1', offset + 4, offset + 8));
    // 1: a 64-bit size follows the type; 0: the box runs to the end of the file.
    const size =
      size32 === 1
        ? Number(bytes.readBigUInt64BE(offset + 8))
        : size32 === 0
          ? bytes.length - offset
          : size32;
    if (size < 8) throw new Error(`box of ${size} bytes at ${offset} in ${path}`);
    offset += size;
  }
  return boxes;
}

/** Processes this test process started that are ffmpeg or ffprobe, zombies included. */
export async function childMediaProcesses(): Promise<Array<{ pid: number; state: string }>> {
  const found: Array<{ pid: number; state: string }> = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …; comm may hold spaces, so split after the closing parenthesis.
    const match = /^(\d+) \((.*)\) (\S) (\d+)/.exec(stat);
    if (!match) continue;
    const [, pid, comm, state, ppid] = match;
    if (Number(ppid) === process.pid && (comm === 'ffmpeg' || comm === 'ffprobe')) {
      found.push({ pid: Number(pid), state: state ?? '?' });
    }
  }
  return found;
}
