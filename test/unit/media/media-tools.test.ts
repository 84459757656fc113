import { describe, expect, it } from 'vitest';
import {
  type ConcatSource,
  concatList,
  joinsAsTheyAre,
  planCopy,
  planReencode,
} from '#shared/media/concat.ts';
import {
  animationSize,
  assertAnimationFrames,
  maxAnimationFrames,
  planAnimation,
} from '#shared/media/convert-animation.ts';
import { loudnessReport, normalizedFormat, planCorrect } from '#shared/media/normalize.ts';
import { PeakCollector } from '#shared/media/peaks.ts';
import type { MediaInfo } from '#shared/media/probe.ts';
import { videoConvertBody } from '#shared/media/schemas.ts';
import { audioWaveformBody } from '#shared/media/tool-schemas.ts';
import { waveformSvg } from '#shared/media/waveform.ts';

const input = { path: '/work/source-0', format: 'mp4' as const, baseName: 'clip' };

const clip = (width: number, height: number, seconds = 10): MediaInfo => ({
  container: 'mp4',
  durationSeconds: seconds,
  sizeBytes: 1000,
  bitRate: 1000,
  streams: [
    { type: 'video', codec: 'h264', width, height, fps: 25, index: 0 },
    { type: 'audio', codec: 'aac', sampleRate: 44100, channels: 2, index: 1 },
  ],
});

const pcm = (...samples: number[]) => Buffer.from(Int16Array.from(samples).buffer);

describe('animations', () => {
  it('default to the source’s width up to 480, aspect kept', () => {
    expect(animationSize({ width: 1280, height: 720 }, {})).toEqual({ width: 480, height: 270 });
    expect(animationSize({ width: 320, height: 240 }, {})).toEqual({ width: 320, height: 240 });
    expect(animationSize({ width: 1280, height: 720 }, { width: 640 })).toEqual({ width: 640, height: 360 });
  });

  it('hold at most a bounded number of frames, naming what fits', () => {
    expect(() => assertAnimationFrames(10, maxAnimationFrames / 10)).not.toThrow();
    expect(() => assertAnimationFrames(10, maxAnimationFrames / 10 + 1)).toThrow(
      /duration: .* would be 3010 frames; an animation holds at most 3000\. Ask for a duration of at most 300 s, or an fps of at most 9\.966/,
    );
  });

  it('make a GIF in two passes: the clip’s palette, then the frames on it', () => {
    const [palette, gif] = planAnimation(input, clip(1280, 720), { outputFormat: 'gif' }, '/o.gif', '/p.png');
    expect(palette?.output).toBe('/p.png');
    expect(palette?.outputOptions.join(' ')).toContain(
      'fps=10,scale=480:270:flags=lanczos,setsar=1,palettegen',
    );
    expect(gif?.moreInputs).toEqual([{ path: '/p.png', demuxer: 'image2' }]);
    expect(gif?.outputOptions.join(' ')).toContain('[frames][1:v]paletteuse');
    expect(gif?.outputOptions.join(' ')).toContain('-loop 0');
  });

  it('make an animated WebP in one pass; loop false plays once', () => {
    const jobs = planAnimation(
      input,
      clip(640, 360),
      { outputFormat: 'webp', loop: false, fps: 5 },
      '/o',
      '/p',
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.outputOptions.join(' ')).toMatch(/fps=5,scale=480:270.*libwebp_anim.*-loop 1/);
  });

  it('are bounded in frame size', () => {
    expect(() =>
      planAnimation(input, clip(8000, 4000), { outputFormat: 'gif', width: 4000 }, '/o', '/p'),
    ).toThrow(/width: .*GIF is written up to 3840 pixels on either side.*at most 3840/);
  });

  it('take loop only with gif and webp', () => {
    const url = 'https://example.com/a.mp4';
    expect(videoConvertBody.safeParse({ sourceUrl: url, outputFormat: 'gif', loop: false }).success).toBe(
      true,
    );
    expect(videoConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp4', loop: false }).success).toBe(
      false,
    );
  });
});

describe('peaks', () => {
  it('keep the lowest and highest sample of any channel, per equal slice', () => {
    const collector = new PeakCollector(2, 2);
    collector.add(pcm(100, -200, 50, 0, 16384, -16384, 0, 0));
    expect(collector.frames).toBe(4);
    expect(collector.peaks(2)).toEqual([
      [-0.0061, 0.0031],
      [-0.5, 0.5],
    ]);
  });

  it('read samples split between chunks at any byte', () => {
    const bytes = pcm(1000, -1000, 2000, -3000);
    const collector = new PeakCollector(1, 1);
    collector.add(bytes.subarray(0, 3));
    collector.add(bytes.subarray(3));
    expect(collector.frames).toBe(4);
    expect(collector.peaks(1)).toEqual([[-0.0916, 0.061]]);
  });

  it('stay in bounded memory for any length, merging blocks', () => {
    const collector = new PeakCollector(1, 10);
    const second = pcm(...Array.from({ length: 8000 }, (_, index) => (index % 2 ? 8192 : -8192)));
    for (let index = 0; index < 200; index += 1) collector.add(second);
    collector.add(pcm(32767, -32768));
    const peaks = collector.peaks(10);
    expect(peaks).toHaveLength(10);
    expect(peaks[0]).toEqual([-0.25, 0.25]);
    expect(peaks[9]).toEqual([-1, 1]);
    expect((collector as unknown as { mins: number[] }).mins.length).toBeLessThan(2 * 1024);
  });

  it('are zero where nothing was read', () => {
    expect(new PeakCollector(1, 3).peaks(3)).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it('draw one bar a column, at least a pixel tall', () => {
    const svg = waveformSvg(
      [
        [0, 0],
        [-1, 1],
      ],
      {
        width: 2,
        height: 10,
        color: { r: 255, g: 0, b: 0, alpha: 1 },
        background: { r: 0, g: 0, b: 0, alpha: 0 },
      },
    );
    expect(svg).toContain('d="M0 4.5h1V5.5h-1zM1 0h1V10h-1z"');
    expect(svg).not.toContain('<rect');
  });

  it('take points only for json', () => {
    const url = 'https://example.com/a.mp3';
    expect(audioWaveformBody.safeParse({ sourceUrl: url, outputFormat: 'json', points: 5 }).success).toBe(
      true,
    );
    expect(audioWaveformBody.safeParse({ sourceUrl: url, points: 5 }).success).toBe(false);
    expect(audioWaveformBody.safeParse({ sourceUrl: url, color: 'not-a-colour' }).success).toBe(false);
  });
});

describe('loudness', () => {
  const log = `[Parsed_loudnorm_0 @ 0x1]\n{\n\t"input_i" : "-27.31",\n\t"input_tp" : "-9.80",\n\t"input_lra" : "3.20",\n\t"input_thresh" : "-37.50",\n\t"output_i" : "-16.02",\n\t"output_tp" : "-1.60",\n\t"output_lra" : "3.10",\n\t"output_thresh" : "-26.30",\n\t"normalization_type" : "linear",\n\t"target_offset" : "0.02"\n}\n`;

  it('is read from loudnorm’s report', () => {
    expect(loudnessReport(log)).toMatchObject({
      input_i: '-27.31',
      output_i: '-16.02',
      target_offset: '0.02',
    });
    expect(loudnessReport('no report')).toBeUndefined();
  });

  it('is corrected in one linear pass from the measured figures, at the source’s rate', () => {
    const measured = loudnessReport(log)!;
    const { job, kbps } = planCorrect(
      input,
      clip(640, 360),
      { outputFormat: 'mp3', targetLufs: -16, truePeak: -1.5 },
      measured,
      '/o.mp3',
      120,
    );
    const args = job.outputOptions.join(' ');
    expect(args).toContain('loudnorm=I=-16:TP=-1.5:LRA=3.2:measured_I=-27.31:measured_TP=-9.80');
    expect(args).toContain('linear=true');
    expect(args).toMatch(/-c:a libmp3lame -b:a 192k -ar 44100/);
    expect(kbps).toBe(192);
  });

  it('writes the source’s own format by default, where it is an audio format', () => {
    expect(normalizedFormat('flac', undefined)).toBe('flac');
    expect(normalizedFormat('mp4', undefined)).toBe('m4a');
    expect(normalizedFormat('webm', undefined)).toBe('ogg');
    expect(normalizedFormat('wav', 'mp3')).toBe('mp3');
  });
});

describe('concatenation', () => {
  const source = (index: number, info: MediaInfo, signature = 'same'): ConcatSource => ({
    input: { path: `/work/source-${index}`, format: 'mp4', baseName: `s${index}` },
    info,
    signature,
  });

  it('joins alike sources as they are, from a list of plain relative names', () => {
    const sources = [source(0, clip(320, 240)), source(1, clip(320, 240))];
    expect(joinsAsTheyAre(sources, 'mp4')).toBe(true);
    expect(joinsAsTheyAre(sources, 'webm')).toBe(false);
    expect(joinsAsTheyAre([sources[0]!, source(1, clip(320, 240), 'other')], 'mp4')).toBe(false);
    expect(concatList(sources)).toBe("ffconcat version 1.0\nfile 'source-0'\nfile 'source-1'\n");
    const job = planCopy(sources, 'mp4', '/work/concat.txt', '/work/o.mp4', 120, 20);
    expect(job.demuxer).toBe('concat');
    expect(job.inputOptions).toEqual(['-safe', '1', '-format_whitelist', 'concat,mov']);
  });

  it('brings differing sources to the first one’s shape, with silence for one without sound', () => {
    const silent: MediaInfo = {
      ...clip(640, 480, 3),
      streams: [{ type: 'video', codec: 'vp9', width: 640, height: 480, fps: 30, index: 0 }],
    };
    const job = planReencode([source(0, clip(320, 240)), source(1, silent)], 'mp4', '/o.mp4', 120, 13);
    const graph = job.outputOptions[job.outputOptions.indexOf('-filter_complex') + 1];
    expect(graph).toContain('[1:0]scale=320:240:force_original_aspect_ratio=decrease,pad=320:240');
    expect(graph).toContain('fps=25');
    expect(graph).toContain('anullsrc=r=44100:cl=stereo,atrim=duration=3');
    expect(graph).toMatch(/\[v0\]\[a0\]\[v1\]\[a1\]concat=n=2:v=1:a=1\[v\]\[a\]$/);
    expect(job.moreInputs?.map((more) => more.path)).toEqual(['/work/source-1']);
  });
});
