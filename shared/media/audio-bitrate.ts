import { vorbisQualityOnlyRates } from '#shared/media/audio-limits.ts';

/**
 * The bitrates each lossy audio encoder takes, by the output's channels and sample rate. Some
 * refuse a bitrate outside their range (libvorbis: "encoder setup failed"; libopus: over 256 kbit/s
 * a channel), others silently write another one (LAME, the AAC encoder). Either way the bitrate
 * asked for (32–320 kbit/s on every route) is brought to the nearest one the encoder takes, and
 * that figure is the one given to the encoder and reported to the caller (`X-Audio-Bitrate`).
 *
 * The ranges were measured on the layer's ffmpeg 5.1 (libvorbis 1.3.7, libopus 1.3.1, LAME 3.100)
 * by bisection over whole kbit/s: docs/media.md, "Audio bitrates".
 */

type Range = readonly [min: number, max: number];

/**
 * libvorbis in managed (bitrate) mode, [min, max] kbit/s by sample rate and then channels (1–8).
 * It is used only at the rates Opus cannot run at; at 88 200 and 96 000 Hz it takes no bitrate at
 * all (only a quality), so a bitrate there is refused by validation.
 */
const vorbisRanges: Readonly<Record<number, readonly Range[]>> = {
  11025: [
    [32, 50],
    [32, 100],
    [36, 150],
    [48, 200],
    [60, 250],
    [72, 300],
    [84, 320],
    [96, 320],
  ],
  22050: [
    [32, 90],
    [32, 180],
    [48, 270],
    [64, 320],
    [80, 320],
    [96, 320],
    [112, 320],
    [128, 320],
  ],
  32000: [
    [32, 190],
    [36, 320],
    [90, 320],
    [120, 320],
    [150, 320],
    [180, 320],
    [210, 320],
    [240, 320],
  ],
  44100: [
    [32, 240],
    [45, 320],
    [96, 320],
    [128, 320],
    [160, 320],
    [84, 320],
    [224, 320],
    [256, 320],
  ],
};

/** The quality libvorbis is given where it takes no bitrate (about 128 kbit/s for stereo at 44.1 kHz). */
export const vorbisQuality = 4;

/** LAME's highest bitrate by MPEG version, which the sample rate decides. */
function lameMax(sampleRate: number): number {
  if (sampleRate <= 12_000) return 64;
  if (sampleRate <= 24_000) return 160;
  return 320;
}

const clamp = (value: number, [min, max]: Range) => Math.min(max, Math.max(min, value));

export interface AudioTargetShape {
  /** Channels of the output. */
  channels: number;
  /** Sample rate of the output, in Hz. */
  sampleRate: number;
}

/**
 * The kbit/s `encoder` is given for `kbps` asked at the output's channels and sample rate: the
 * asked figure where the encoder takes it, else the nearest one it does. Undefined where the
 * encoder takes no bitrate (lossless, or Vorbis at 88.2 and 96 kHz).
 */
export function encoderBitrate(encoder: string, kbps: number, shape: AudioTargetShape): number | undefined {
  const channels = Math.max(1, Math.round(shape.channels));
  switch (encoder) {
    case 'libvorbis': {
      if (vorbisQualityOnlyRates.has(shape.sampleRate)) return undefined;
      const byRate = vorbisRanges[shape.sampleRate] ?? vorbisRanges[44100];
      const range = byRate?.[Math.min(channels, 8) - 1];
      return range ? clamp(kbps, range) : kbps;
    }
    case 'libopus':
      // 256 kbit/s a channel at most.
      return Math.min(kbps, 256 * channels);
    case 'libmp3lame':
      return Math.min(kbps, lameMax(shape.sampleRate));
    case 'aac':
      // At most 6144 bits a channel in a frame of 1024 samples: 6 bits a sample a channel.
      return Math.min(kbps, Math.floor((6 * shape.sampleRate * Math.min(channels, 8)) / 1000));
    default:
      return undefined;
  }
}
