import { type AudioOptions, planAudio } from '#shared/media/convert-audio.ts';
import { planVideo, type VideoOptions } from '#shared/media/convert-video.ts';
import type { MediaInput } from '#shared/media/job.ts';
import { probeMedia } from '#shared/media/probe.ts';
import type { FfmpegJob } from '#shared/media/run.ts';

/**
 * The ffmpeg command a media route plans for an mp4 source, to run the same command directly:
 * the bare engine the benchmarks set beside the service.
 */

export type Plan = (source: string, output: string) => Promise<FfmpegJob>;

const probe = (path: string) => probeMedia(path, 'mp4', { timeoutMs: 60_000 });
const mp4 = (path: string): MediaInput => ({ path, format: 'mp4', baseName: 'clip' });

export const videoPlan =
  (options: VideoOptions): Plan =>
  async (source, output) =>
    planVideo(mp4(source), await probe(source), options, output).job;

export const audioPlan =
  (options: AudioOptions): Plan =>
  async (source, output) =>
    planAudio(mp4(source), await probe(source), options, output);
