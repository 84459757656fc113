import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { referenceFfmpeg, referenceFfprobe } from '../support/reference-tools.ts';

const run = promisify(execFile);

/** What the reference reader (ffprobe, left to guess the format itself) makes of a file. */
export interface ReferenceReading {
  /** ffprobe opened it and found an audio or video stream. */
  opens: boolean;
  /** Frames decoded from the first audio stream; 0 when there is none. */
  audioFrames: number;
  /** Frames decoded from the first video stream that is not a cover picture. */
  videoFrames: number;
  formatName?: string;
  /** The duration the header states, if any. */
  headerSeconds?: number;
}

interface Report {
  format?: { format_name?: string; duration?: string };
  streams?: Array<{ codec_type?: string; nb_read_frames?: string; disposition?: { attached_pic?: number } }>;
}

/** Decodes every frame of a (small) file: the reference's own verdict, not its header's. */
export async function readByReference(path: string): Promise<ReferenceReading> {
  let report: Report;
  try {
    const { stdout } = await run(
      referenceFfprobe,
      [
        '-v',
        'error',
        '-protocol_whitelist',
        'file',
        '-count_frames',
        '-print_format',
        'json',
        '-show_format',
        '-show_streams',
        `file:${path}`,
      ],
      { timeout: 60_000 },
    );
    report = JSON.parse(stdout) as Report;
  } catch {
    return { opens: false, audioFrames: 0, videoFrames: 0 };
  }
  const streams = report.streams ?? [];
  const frames = (type: string) => {
    const stream = streams.find(
      (entry) => entry.codec_type === type && entry.disposition?.attached_pic !== 1,
    );
    return Number(stream?.nb_read_frames ?? 0) || 0;
  };
  const duration = Number(report.format?.duration);
  return {
    opens: streams.some((entry) => entry.codec_type === 'audio' || entry.codec_type === 'video'),
    audioFrames: frames('audio'),
    videoFrames: frames('video'),
    ...(report.format?.format_name ? { formatName: report.format.format_name } : {}),
    ...(Number.isFinite(duration) ? { headerSeconds: duration } : {}),
  };
}

/** Seconds of media ffmpeg decodes from a file (the last time mark of a decode to nothing). */
export async function decodedSeconds(path: string): Promise<number> {
  const { stderr } = await run(
    referenceFfmpeg,
    [
      '-nostdin',
      '-v',
      'error',
      '-stats',
      '-protocol_whitelist',
      'file',
      '-i',
      `file:${path}`,
      '-f',
      'null',
      '-',
    ],
    { timeout: 60_000 },
  );
  const marks = [...stderr.matchAll(/time=\s*(\d+):(\d\d):(\d\d(?:\.\d+)?)/g)];
  const last = marks.at(-1);
  if (!last) return Number.NaN;
  return Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]);
}
