import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { limitedCommand } from '#shared/process-limits.ts';
import { blurChain, solidPng, svgWithRaster, useAmplification } from '../../test/corpus/svg-bounds.ts';
import type { FixtureServer } from '../../test/support/fixture-server.ts';
import { hugeFrameAvi } from '../../test/support/huge-frames.ts';
import { referenceFfmpeg } from '../../test/support/reference-tools.ts';

const run = promisify(execFile);

/**
 * One request of a case; `afterMs` sends it that long after the case starts (a request "meanwhile").
 * `warm` is a harmless request to the same route sent (untimed) before the case, so that its time is
 * the work and not a worker process starting.
 */
export interface ReplayRequest {
  route: string;
  method?: 'GET' | 'POST';
  body?: unknown;
  afterMs?: number;
  warm?: { body?: unknown };
}

/** The requests of a case are sent together; the gateway tree's peak memory is taken over all of them. */
export interface ReplayCase {
  name: string;
  requests: ReplayRequest[];
}

/** A 16 × 32 H.264 clip of one second, made by Debian's ffmpeg capped at 256 MiB. */
async function narrowClip(dir: string): Promise<Buffer> {
  const path = join(dir, 'narrow.mp4');
  const args = ['-v', 'error', '-nostdin', '-f', 'lavfi', '-i', 'testsrc2=size=16x32:rate=10:duration=1'];
  const encode = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-f', 'mp4', '-y', path];
  const command = limitedCommand(referenceFfmpeg, [...args, ...encode], {
    dataBytes: 256 * 2 ** 20,
    cpuSeconds: 30,
  });
  await run(command.file, command.args);
  return readFile(path);
}

/**
 * Writes the hostile inputs of issue 15 (items 1-5) with the test suite's own fixture writers,
 * serves them from `sources`, and answers the cases that send them.
 */
export async function hostileCases(sources: FixtureServer, dir: string): Promise<ReplayCase[]> {
  const huge = sources.serve('/huge.avi', await readFile(await hugeFrameAvi(dir, 16_000)), 'video/x-msvideo');
  const narrow = sources.serve('/narrow.mp4', await narrowClip(dir), 'video/mp4');
  const raster = sources.serve('/raster.svg', svgWithRaster(12_000), 'image/svg+xml');
  // 36 blurs at 2000² is about 2.2 KB, the size of the reported filter chain.
  const blurs = sources.serve('/blurs.svg', blurChain(36, 2000), 'image/svg+xml');
  const uses = sources.serve('/uses.svg', useAmplification(10, 10), 'image/svg+xml');
  const tiny = sources.serve('/tiny.png', solidPng(8), 'image/png');
  const sentenceEnds = '. '.repeat(500_000); // 1 MB, inside the 1 MiB body limit

  return [
    {
      name: '1 16000² MJPEG',
      requests: [{ route: '/video-convert', body: { sourceUrl: huge, outputFormat: 'webm' } }],
    },
    { name: '1 16000² MJPEG', requests: [{ route: '/video-thumbnail', body: { sourceUrl: huge } }] },
    {
      name: '1 16×32 at width 7680',
      requests: [{ route: '/video-convert', body: { sourceUrl: narrow, outputFormat: 'webm', width: 7680 } }],
    },
    {
      name: '2 12000² data: PNG',
      requests: [{ route: '/image-convert', body: { sourceUrl: raster, outputFormat: 'png' } }],
    },
    {
      name: '2 12000² data: PNG',
      requests: [{ route: '/image-resize', body: { sourceUrl: raster, width: 32 } }],
    },
    { name: '2 12000² data: PNG', requests: [{ route: '/image-to-pdf', body: { sources: [raster] } }] },
    {
      name: '3 sentence, 1 MB',
      requests: [
        {
          route: '/text-case',
          body: { text: sentenceEnds, case: 'sentence' },
          warm: { body: { text: 'a. b', case: 'sentence' } },
        },
        { route: '/status', method: 'GET', afterMs: 100, warm: {} },
      ],
    },
    {
      name: '4 four blur chains',
      requests: [
        ...Array.from({ length: 4 }, () => ({
          route: '/image-convert',
          body: { sourceUrl: blurs, outputFormat: 'png' },
        })),
        {
          route: '/image-metadata',
          body: { sourceUrl: tiny },
          afterMs: 500,
          warm: { body: { sourceUrl: tiny } },
        },
      ],
    },
    {
      name: '5 <use> 10×10',
      requests: [{ route: '/image-convert', body: { sourceUrl: uses, outputFormat: 'png' } }],
    },
  ];
}
