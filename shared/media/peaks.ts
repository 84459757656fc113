/**
 * The peaks of a waveform, gathered from 16-bit PCM as it streams past, in memory that does not grow
 * with the audio's length: samples are folded into blocks of a [min, max] each; when the blocks
 * reach twice `capacity`, neighbours are merged and each block covers twice the frames. At the end
 * the blocks are shared out among the points asked for.
 */
export class PeakCollector {
  readonly channels: number;
  private readonly capacity: number;
  private mins: number[] = [];
  private maxs: number[] = [];
  /** Frames (one sample of each channel) a block covers. */
  private blockFrames = 1;
  private low = 0;
  private high = 0;
  private framesInBlock = 0;
  private channel = 0;
  /** The odd byte of a chunk that ended in the middle of a sample. */
  private carry: number | undefined;
  /** Whole frames read so far. */
  frames = 0;

  constructor(channels: number, points: number) {
    this.channels = Math.max(1, channels);
    this.capacity = Math.max(1024, points * 4);
  }

  /** Reads a chunk of interleaved little-endian signed 16-bit samples. */
  add(chunk: Buffer): void {
    let bytes = chunk;
    if (this.carry !== undefined) {
      bytes = Buffer.concat([Buffer.of(this.carry), chunk]);
      this.carry = undefined;
    }
    const whole = bytes.length - (bytes.length % 2);
    if (whole < bytes.length) this.carry = bytes[whole];
    // A typed view needs an even offset; a chunk sliced at an odd one is copied first.
    const aligned = bytes.byteOffset % 2 === 0 ? bytes : Buffer.from(bytes.subarray(0, whole));
    const samples = new Int16Array(aligned.buffer, aligned.byteOffset, whole / 2);
    for (const value of samples) this.sample(value);
  }

  private sample(value: number): void {
    if (this.framesInBlock === 0 && this.channel === 0) {
      this.low = value;
      this.high = value;
    } else if (value < this.low) this.low = value;
    else if (value > this.high) this.high = value;
    this.channel += 1;
    if (this.channel < this.channels) return;
    this.channel = 0;
    this.frames += 1;
    this.framesInBlock += 1;
    if (this.framesInBlock === this.blockFrames) this.closeBlock();
  }

  private closeBlock(): void {
    this.mins.push(this.low);
    this.maxs.push(this.high);
    this.framesInBlock = 0;
    if (this.mins.length < 2 * this.capacity) return;
    const mins: number[] = [];
    const maxs: number[] = [];
    for (let index = 0; index < this.mins.length; index += 2) {
      mins.push(Math.min(this.mins[index]!, this.mins[index + 1] ?? this.mins[index]!));
      maxs.push(Math.max(this.maxs[index]!, this.maxs[index + 1] ?? this.maxs[index]!));
    }
    this.mins = mins;
    this.maxs = maxs;
    this.blockFrames *= 2;
  }

  /** `points` pairs of [min, max] in −1…1, each over an equal share of the audio; zeros for silence never read. */
  peaks(points: number): [number, number][] {
    if (this.framesInBlock > 0) this.closeBlock();
    const blocks = this.mins.length;
    const scale = (value: number) => Math.round((value / 32768) * 10_000) / 10_000;
    return Array.from({ length: points }, (_, point): [number, number] => {
      if (blocks === 0) return [0, 0];
      const first = Math.floor((point * blocks) / points);
      const end = Math.max(first + 1, Math.floor(((point + 1) * blocks) / points));
      let low = this.mins[first]!;
      let high = this.maxs[first]!;
      for (let index = first + 1; index < end; index += 1) {
        low = Math.min(low, this.mins[index]!);
        high = Math.max(high, this.maxs[index]!);
      }
      return [scale(low), scale(high)];
    });
  }
}

/**
 * The samples of a WAV stream that ffmpeg's own wav muxer writes to a pipe (`-bitexact`): its RIFF
 * header is passed over chunk by chunk up to the `data` chunk, whose bytes go to `samples`. The
 * length fields are not trusted: on a pipe the muxer cannot go back to fill them in.
 */
export class WavSamples {
  private header: Buffer = Buffer.alloc(0);
  private inData = false;
  private readonly samples: (chunk: Buffer) => void;

  constructor(samples: (chunk: Buffer) => void) {
    this.samples = samples;
  }

  add(chunk: Buffer): void {
    if (this.inData) {
      this.samples(chunk);
      return;
    }
    this.header = Buffer.concat([this.header, chunk]);
    // "RIFF" size "WAVE", then chunks of id, size (little-endian), body (padded to even).
    let offset = 12;
    while (this.header.length >= offset + 8) {
      const id = this.header.toString('latin1', offset, offset + 4);
      if (id === 'data') {
        this.inData = true;
        const rest = this.header.subarray(offset + 8);
        this.header = Buffer.alloc(0);
        if (rest.length > 0) this.samples(rest);
        return;
      }
      const size = this.header.readUInt32LE(offset + 4);
      offset += 8 + size + (size % 2);
    }
    if (this.header.length > 64 * 1024) throw new Error('no data chunk in the WAV header');
  }
}
