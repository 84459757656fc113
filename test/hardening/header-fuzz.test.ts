import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { apiEvent } from '../support/lambda.ts';
import { buildCorpus, headerFuzzFormats } from './corpus/build.ts';
import { audioFormats, videoFormats } from './corpus/media.ts';
import {
  acceptedFormats,
  bodyWithSource,
  callWithin,
  contractBreach,
  downloadingRoutes,
  fuzzSeed,
  handlerOf,
  PrivateTmp,
} from './support.ts';

/**
 * Sound files of every input format with a few bytes of their header rewritten (sizes, counts,
 * offsets and flags are where parsers trust their input), sent through a route that accepts the
 * format: the answer is a 2xx or a clean 4xx within the time limit, never a 5xx, and no workspace
 * is left. fast-check picks the bytes, their new values and the route.
 */

const CALL_MS = 30_000;
const HEADER_BYTES = 64;
const mediaFormats: readonly string[] = [...audioFormats, ...videoFormats];

// Every corpus format a route reads is fuzzed. A format that still reaches a 500 gets its own
// `it.fails` naming what happens and where the fix belongs, never a silent exclusion.

const fixtures = new FixtureServer();
const tmp = new PrivateTmp();
let originals: Record<string, Buffer> = {};
let served = 0;

beforeAll(async () => {
  await tmp.open();
  await fixtures.start();
  ({ originals } = await buildCorpus(tmp.dir, fixtures.url('/tracker')));
}, 120_000);

afterAll(async () => {
  await fixtures.stop();
  await tmp.close();
});

/** Values that sit on the edges of the integer fields headers are made of. */
const byteValue = fc.oneof(
  fc.constantFrom(0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe),
  fc.integer({ min: 0, max: 255 }),
);

const edits = fc.array(fc.tuple(fc.nat({ max: HEADER_BYTES - 1 }), byteValue), {
  minLength: 1,
  maxLength: 6,
});

function rewritten(bytes: Buffer, changes: ReadonlyArray<[number, number]>): Buffer {
  const copy = Buffer.from(bytes);
  for (const [at, value] of changes) if (at < copy.length) copy[at] = value;
  return copy;
}

const formatsUnderTest = () => {
  const accepted = new Set(downloadingRoutes().flatMap((route) => acceptedFormats(route)));
  return headerFuzzFormats().filter((format) => accepted.has(format));
};

describe('headers rewritten byte by byte', () => {
  for (const format of formatsUnderTest()) {
    it(`${format}: every route that reads it answers 2xx or a clean 4xx`, async () => {
      const routes = downloadingRoutes().filter((route) => acceptedFormats(route).includes(format));
      const original = originals[format];
      expect(original, `an original ${format}`).toBeDefined();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes.map((route) => route.path)),
          edits,
          async (path, changes) => {
            const route = routes.find((candidate) => candidate.path === path)!;
            served += 1;
            const url = fixtures.serve(`/${format}/${served}/file.${format}`, rewritten(original!, changes));
            const what = `${route.path} with ${format} bytes ${JSON.stringify(changes)}`;
            const handler = await handlerOf(route);
            const answer = await callWithin(handler, apiEvent(bodyWithSource(route, url)), CALL_MS, what);
            const breach = contractBreach(answer);
            if (breach) throw new Error(`${what}: ${breach}`);
          },
        ),
        { numRuns: mediaFormats.includes(format) ? 6 : 16, endOnFailure: true, seed: fuzzSeed },
      );
      expect(await tmp.leftovers()).toEqual([]);
    }, 90_000);
  }
});
