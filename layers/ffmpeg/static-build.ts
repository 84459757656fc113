import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  ensureBuildPackages,
  installedDebianVersion,
  newestDebianVersion,
  unpackedSource,
} from '../debian-source.ts';

/**
 * A static ffmpeg and ffprobe compiled from Debian 12's ffmpeg source package, linked against the
 * static libraries of Debian's own codec packages (x264, libvpx, opus, LAME, libwebp, Vorbis,
 * Speex, zlib) and glibc, so that they run on Lambda's Amazon Linux whatever its libraries.
 *
 * Only what the routes use is built in: the demuxers of the formats they read, the decoders of the
 * codecs those carry, the encoders and muxers they write, the filters they ask for (and the ones
 * ffmpeg inserts itself: rotation, format and sample-rate conversion), the file and pipe protocols.
 * No network, no devices: a decoder that is not there cannot be attacked.
 */

/** Debian packages the build needs: the compiler, the assembler, the codecs' static libraries. */
export const buildPackages = [
  'build-essential',
  'dpkg-dev',
  'nasm',
  'pkg-config',
  'zlib1g-dev',
  'libx264-dev',
  'libvpx-dev',
  'libopus-dev',
  'libmp3lame-dev',
  'libwebp-dev',
  'libvorbis-dev',
  'libspeex-dev',
] as const;

const list = (items: readonly string[]) => items.join(',');

// concat: the file list /media-concat writes itself (relative names in its own folder, `safe` on);
// image2: the GIF palette that the first pass writes and the second reads.
const demuxers = ['mov', 'matroska', 'avi', 'mp3', 'wav', 'ogg', 'aac', 'flac', 'concat', 'image2'];
const muxers = [
  'mp4',
  'ipod',
  'mov',
  'webm',
  'matroska',
  'avi',
  'mp3',
  'wav',
  'ogg',
  'adts',
  'flac',
  'image2',
  'gif',
  'webp',
  // Inert: ffmpeg names this muxer pcm_s16le, so this entry enables nothing. /audio-waveform reads
  // WAV from the pipe instead. Kept so that the configuration (and its compiled build) stays the
  // one the layer was built from; drop it with the recipe's next change.
  's16le',
  'null',
];
const videoDecoders = [
  'h264',
  'hevc',
  'mpeg4',
  'h263',
  'msmpeg4v1',
  'msmpeg4v2',
  'msmpeg4v3',
  'mpeg1video',
  'mpeg2video',
  'vp8',
  'vp9',
  'theora',
  'mjpeg',
  'prores',
  'png',
  'rawvideo',
];
const audioDecoders = [
  'aac',
  'aac_latm',
  'mp1',
  'mp1float',
  'mp2',
  'mp3',
  'mp3float',
  'opus',
  'vorbis',
  'flac',
  'alac',
  'ac3',
  'eac3',
  'pcm_s16le',
  'pcm_s16be',
  'pcm_s24le',
  'pcm_s32le',
  'pcm_f32le',
  'pcm_f64le',
  'pcm_u8',
  'pcm_alaw',
  'pcm_mulaw',
  'adpcm_ima_wav',
  'adpcm_ms',
  // Speex has no decoder of ffmpeg's own; Debian's ffmpeg reads it through libspeex, and so do we.
  'libspeex',
];
const encoders = [
  'libx264',
  'libvpx_vp8',
  'libvpx_vp9',
  'mpeg4',
  'mjpeg',
  'png',
  'libwebp',
  'libwebp_anim',
  'gif',
  'aac',
  'libmp3lame',
  'libopus',
  'libvorbis',
  'flac',
  'pcm_s16le',
  'pcm_s24le',
];
const parsers = [
  'h264',
  'hevc',
  'mpeg4video',
  'mpegvideo',
  'vp8',
  'vp9',
  'aac',
  'aac_latm',
  'mpegaudio',
  'opus',
  'vorbis',
  'flac',
  'ac3',
  'mjpeg',
  'png',
];
const filters = [
  'scale',
  'setsar',
  'fps',
  'format',
  'aformat',
  'aresample',
  'null',
  'anull',
  'trim',
  'atrim',
  'setpts',
  'asetpts',
  'transpose',
  'hflip',
  'vflip',
  'rotate',
  // GIF and animated WebP: the palette computed from the clip.
  'palettegen',
  'paletteuse',
  // Loudness: measured and corrected (EBU R128).
  'loudnorm',
  'ebur128',
  // Concatenation of sources brought to one size, rate and layout; silence for a source without sound.
  'concat',
  'pad',
  'anullsrc',
];

export const configureFlags: readonly string[] = [
  '--enable-gpl',
  '--enable-version3',
  '--disable-debug',
  '--disable-doc',
  '--disable-ffplay',
  '--disable-network',
  '--disable-autodetect',
  '--disable-everything',
  `--enable-demuxer=${list(demuxers)}`,
  `--enable-muxer=${list(muxers)}`,
  `--enable-decoder=${list([...videoDecoders, ...audioDecoders])}`,
  `--enable-encoder=${list(encoders)}`,
  `--enable-parser=${list(parsers)}`,
  '--enable-bsfs',
  `--enable-filter=${list(filters)}`,
  '--enable-protocol=file,pipe',
  '--enable-zlib',
  '--enable-libx264',
  '--enable-libvpx',
  '--enable-libopus',
  '--enable-libmp3lame',
  '--enable-libwebp',
  '--enable-libvorbis',
  '--enable-libspeex',
  '--pkg-config-flags=--static',
  '--extra-ldexeflags=-static',
  '--extra-version=static',
];

/** What a build is made of; any change rebuilds it. */
export function buildInputs(debianVersion: string): Record<string, string> {
  const flags = createHash('sha256').update(configureFlags.join('\n')).digest('hex').slice(0, 16);
  return { debianSource: `ffmpeg ${debianVersion}`, configure: flags };
}

export interface StaticBuild {
  /** Folder holding `ffmpeg` and `ffprobe`. */
  bin: string;
  debianVersion: string;
  inputs: Record<string, string>;
}

/**
 * The Debian version to build: the one of Debian's ffmpeg package installed here, which makes the
 * tests' fixtures and which the local gateway runs, so that both are the same release from the same source; without it,
 * the newest in Debian 12 and its security updates.
 */
export const targetDebianVersion = (aptDir: string) =>
  installedDebianVersion('ffmpeg') ?? newestDebianVersion('ffmpeg', aptDir);

/**
 * Builds (or finds, built before from the same inputs) the static binaries under `cacheRoot`.
 * The compile takes minutes; a finished build is kept with a stamp of its inputs and reused.
 */
export function staticFfmpeg(cacheRoot: string, debianVersion?: string): StaticBuild {
  const work = join(cacheRoot, 'ffmpeg-build');
  mkdirSync(work, { recursive: true });
  const version = debianVersion ?? targetDebianVersion(work);
  const inputs = buildInputs(version);
  // One folder per release and configuration: builds of other recipes (another branch's) stay reusable.
  const dir = join(work, `${version}-${inputs.configure}`.replace(/[^\w.+-]/g, '_'));
  const bin = join(dir, 'bin');
  const stamp = join(dir, 'stamp.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(inputs)) {
    return { bin, debianVersion: version, inputs };
  }
  ensureBuildPackages('ffmpeg', buildPackages);
  // The index is refreshed before every download: Debian keeps only the newest files of a release.
  newestDebianVersion('ffmpeg', work);
  const source = unpackedSource('ffmpeg', work, dir, version);
  const quiet = { cwd: source, stdio: ['ignore', 'ignore', 'inherit'] as ('ignore' | 'inherit')[] };
  execFileSync('./configure', [`--prefix=${dir}`, ...configureFlags], quiet);
  execFileSync('make', [`-j${availableParallelism()}`, 'ffmpeg', 'ffprobe'], quiet);
  mkdirSync(bin, { recursive: true });
  for (const name of ['ffmpeg', 'ffprobe']) {
    execFileSync('strip', ['-o', join(bin, name), join(source, name)]);
  }
  writeFileSync(stamp, JSON.stringify(inputs));
  return { bin, debianVersion: version, inputs };
}
