import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '#shared/routes.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { type Answer, apiEvent } from '../support/lambda.ts';
import { referenceFfprobe } from '../support/reference-tools.ts';
import { buildCorpus, corpusFormats } from './corpus/build.ts';
import { pngClaiming } from './corpus/images.ts';
import type { Bait, Corpus, Specimen } from './corpus/specimen.ts';
import {
  acceptedFormats,
  bodyWithSource,
  callWithin,
  contractBreach,
  downloadingRoutes,
  errorCodeOf,
  handlerOf,
  heapAfterGcMiB,
  PrivateTmp,
  peakRssMiB,
} from './support.ts';

/**
 * Malicious and malformed files through the real handlers, served over loopback. Every specimen of
 * a format runs on the first route of each family (the route table's tag) that accepts the format,
 * and on a quarter of the family's other routes, spread so that each of those routes meets a quarter
 * of the specimens and each specimen a quarter of the routes: the routes of a family read their sources
 * with the same reader, and the whole matrix grew past the suite's time (the catalogue of GET
 * /formats says which route accepts what). Each answers within a bounded time, with a 4xx where the specimen must be refused, never
 * with a 5xx, never with a byte of the bait files, never by fetching the tracker URL, and leaves
 * no workspace behind. Over the whole corpus, the process (handlers run in it, as in a Lambda
 * container) stays within a memory bound.
 */

const CALL_MS = 30_000;

/**
 * How far above where it started the process's resident size may ever get while the whole corpus
 * runs through it. The image and PDF functions have 2 GiB in Lambda; their worst inputs must leave
 * most of it for the runtime and a legitimate request, so the bound is well under half. Today's
 * peak is about 450 MiB, mostly pdfium's WebAssembly memory (it grows to the largest page it was
 * asked to render and never shrinks) and libvips; a single decoded pixel or frame bomb of the
 * corpus needs tens of GiB.
 */
const CORPUS_PEAK_RSS_MIB = 768;

/**
 * What the live heap may keep after the corpus, with every handler loaded before it started:
 * what the engines build once on first use, not anything per request (today about 3 MiB, about
 * 10 MiB with coverage instrumentation). Spread over the corpus's 127 requests, a leak of 130 KiB
 * per request would cross it.
 */
const CORPUS_HEAP_GROWTH_MIB = 16;

// Every specimen runs on every route that reads its format. A finding that cannot be fixed at once
// gets its own `it.fails` naming the specimen, the route and where the fix belongs, so vitest shows
// it (and fails it once fixed); never a list that drops specimens silently.

const fixtures = new FixtureServer();
const tmp = new PrivateTmp();
let corpus: Corpus = {};
let bait: Bait;
let trackerHits = 0;
let memoryAtStart = { rssMiB: 0, heapMiB: 0 };
const urls = new Map<Specimen, string>();
const hostname = (() => {
  try {
    return readFileSync('/etc/hostname', 'utf8').trim();
  } catch {
    return '';
  }
})();

beforeAll(async () => {
  await tmp.open();
  await fixtures.start();
  const trackerUrl = fixtures.route('/tracker.png', (_request, response) => {
    trackerHits += 1;
    response.writeHead(200, { 'Content-Type': 'image/png' }).end(pngClaiming(1, 1));
  });
  ({ corpus, bait } = await buildCorpus(tmp.dir, trackerUrl));
  let index = 0;
  for (const [format, specimens] of Object.entries(corpus)) {
    for (const specimen of specimens) {
      index += 1;
      urls.set(
        specimen,
        fixtures.serve(
          `/${format}/${index}/file.${specimen.extension}`,
          specimen.bytes,
          specimen.contentType,
        ),
      );
    }
  }
  await Promise.all(downloadingRoutes().map((route) => handlerOf(route)));
  memoryAtStart = { heapMiB: heapAfterGcMiB(), rssMiB: process.memoryUsage().rss / 1024 / 1024 };
}, 120_000);

// Checked once the whole corpus has run through this process, in whatever order the tests ran.
afterAll(async () => {
  try {
    const peakGrowth = peakRssMiB() - memoryAtStart.rssMiB;
    expect(peakGrowth, `peak RSS ${peakRssMiB().toFixed(0)} MiB`).toBeLessThan(CORPUS_PEAK_RSS_MIB);
    const heapGrowth = heapAfterGcMiB() - memoryAtStart.heapMiB;
    expect(heapGrowth, 'live heap kept after the corpus').toBeLessThan(CORPUS_HEAP_GROWTH_MIB);
  } finally {
    await fixtures.stop();
    await tmp.close();
  }
});

/** Every byte sequence an answer carries: the body, and each entry when the body is a ZIP. */
function payloads(answer: Answer): Buffer[] {
  const type = String(answer.headers['Content-Type'] ?? '');
  if (!type.startsWith('application/zip')) return [answer.body];
  return [
    answer.body,
    ...Object.values(unzipSync(new Uint8Array(answer.body))).map((entry) => Buffer.from(entry)),
  ];
}

/** Pixels of an image answer, when sharp can read it back (it reads no ICO or PDF). */
async function pixelsOf(bytes: Buffer): Promise<{ data: Buffer; channels: number } | undefined> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: 50_000_000 })
      .flatten({ background: '#ffffff' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, channels: info.channels };
  } catch {
    return undefined;
  }
}

/** Why an answer shows that a bait file was read, or undefined. */
async function leak(answer: Answer, specimen: Specimen): Promise<string | undefined> {
  for (const bytes of payloads(answer)) {
    if (bytes.includes(bait.token)) return 'the secret token is in the answer';
    if (bytes.includes(bait.secretText)) return 'a local path is in the answer';
    const text = bytes.toString('latin1');
    if (hostname.length >= 6 && text.includes(hostname)) return 'the host name is in the answer';
    const pixels = await pixelsOf(bytes);
    if (!pixels) continue;
    const { data, channels } = pixels;
    for (let at = 0; at + 2 < data.length; at += channels) {
      const [red, green, blue] = [data[at]!, data[at + 1]!, data[at + 2]!];
      if (green > 200 && red < 90 && blue < 90) return 'green pixels of the secret PNG are in the answer';
      if (specimen.blank && Math.min(red, green, blue) < 200) {
        return 'something was drawn over a blank picture (text of a local file?)';
      }
    }
  }
  return undefined;
}

async function assertSpecimen(route: RouteSpec, handler: unknown, specimen: Specimen): Promise<void> {
  const url = urls.get(specimen)!;
  const what = `${route.path} with ${specimen.name}`;
  const started = performance.now();
  const answer = await callWithin(
    handler,
    apiEvent(bodyWithSource(route, url), { path: route.path }),
    CALL_MS,
    what,
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const breach = contractBreach(answer);
  if (breach) throw new Error(`${what}: ${breach} (after ${seconds} s)`);
  const code = errorCodeOf(answer);
  const refused =
    specimen.expect === 'refused' ||
    (specimen.refusedBy !== undefined && route.errors.includes(specimen.refusedBy as never));
  if (refused) {
    expect(answer.statusCode, `${what} must be refused`).toBeGreaterThanOrEqual(400);
    if (specimen.codes) expect(specimen.codes, `${what} answered ${code}`).toContain(code);
  }
  if (answer.statusCode < 300 && route.kind === 'file') {
    expect(answer.body.length, `${what}: empty file`).toBeGreaterThan(0);
    if (route.produces) {
      const type = String(answer.headers['Content-Type']).split(';')[0]!;
      expect(route.produces, `${what}: answered ${type}`).toContain(type);
    }
  }
  const leaked = await leak(answer, specimen);
  if (leaked) throw new Error(`${what}: ${leaked}`);
  expect(trackerHits, `${what} fetched the tracker URL`).toBe(0);
  expect(await tmp.leftovers(), `${what} left its workspace`).toEqual([]);
}

describe('the corpus itself', () => {
  it('holds specimens that are what they claim', async () => {
    const bomb = await sharp(pngClaiming(100_000, 100_000), { limitInputPixels: false }).metadata();
    expect([bomb.width, bomb.height]).toEqual([100_000, 100_000]);
    expect(corpus.svg?.length).toBeGreaterThan(10);
    expect(corpus.pdf?.length).toBeGreaterThan(10);
  });

  it('has specimens for every file format the catalogue names as an input', () => {
    const named = downloadingRoutes()
      .flatMap((route) => acceptedFormats(route))
      .filter((format) => format !== 'file');
    for (const format of named) expect(corpus[format]?.length, format).toBeGreaterThan(0);
  });

  it('holds playlists that ffmpeg follows to a local file when it is left to choose the demuxer', async () => {
    // Current ffmpeg only takes a playlist for one under its own extension; older builds guessed from the bytes.
    const playlist = join(tmp.dir, 'guess.m3u8');
    writeFileSync(
      playlist,
      `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile://${bait.secretAudio}\n#EXT-X-ENDLIST\n`,
    );
    const { stdout } = await promisify(execFile)(referenceFfprobe, [
      ...['-v', 'error', '-protocol_whitelist', 'file', '-show_entries', 'format=format_name,duration'],
      ...['-of', 'json', playlist],
    ]);
    const { format } = JSON.parse(stdout) as { format: { format_name: string; duration: string } };
    expect(format.format_name).toBe('hls');
    expect(Number(format.duration)).toBeGreaterThan(0.4);
  });
});

/** Of a family's routes that accept `format`, the first reads every specimen; each other a quarter. */
function specimensFor(route: RouteSpec, format: string): Specimen[] {
  const family = downloadingRoutes().filter(
    (each) => each.tag === route.tag && acceptedFormats(each).includes(format),
  );
  const place = family.indexOf(route);
  const specimens = corpus[format] ?? [];
  if (place === 0) return specimens;
  const share = specimens.filter((_, index) => (index + place) % 4 === 0);
  // A format of few specimens still gives each route one.
  return share.length > 0 ? share : specimens.slice(place % specimens.length, (place % specimens.length) + 1);
}

describe('malicious and malformed files through the routes that download', () => {
  it('has routes that download', () => {
    expect(downloadingRoutes().length).toBeGreaterThan(0);
  });

  for (const route of downloadingRoutes()) {
    it(`${route.path}: the route's example is a valid body once its sources are swapped`, () => {
      const parsed = route.body?.safeParse(bodyWithSource(route, 'http://127.0.0.1/file'));
      expect(parsed?.success, JSON.stringify(parsed?.error?.issues)).toBe(true);
    });

    for (const format of acceptedFormats(route).filter((name) => corpusFormats().includes(name))) {
      it(`${route.path} × ${format}`, async () => {
        const handler = await handlerOf(route);
        const failures: string[] = [];
        for (const specimen of specimensFor(route, format)) {
          await assertSpecimen(route, handler, specimen).catch((error: Error) =>
            failures.push(error.message),
          );
        }
        expect(failures).toEqual([]);
      });
    }
  }
});
