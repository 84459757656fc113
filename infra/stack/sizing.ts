import { z } from 'zod';
import type { RouteSpec } from '#shared/routes.ts';
import { tierNames, tiers } from '#shared/tiers.ts';

export interface FunctionSizing {
  memoryMiB: number;
  timeoutSeconds: number;
  /** /tmp, where sources are downloaded and outputs written. */
  ephemeralMiB: number;
}

const MiB = 1024 * 1024;

/** Lambda's /tmp: 512 MiB come with every function, 10240 MiB is the most it may have. */
export const ephemeralLimitsMiB = { included: 512, max: 10_240 } as const;

/** The largest source any tier may send: a function that downloads must fit it on /tmp. */
export const largestSourceMiB = Math.ceil(
  Math.max(...tierNames.map((tier) => tiers[tier].maxSourceBytes)) / MiB,
);

/** API Gateway gives up on a buffered integration after 29 s; working on past that wastes money. */
const bufferedTimeoutSeconds = 29;

/** Body fields that name files the function downloads to /tmp (one URL, or a batch). */
const sourceFields = ['sourceUrl', 'sources'] as const;

/** Whether the route downloads sources, read from its request schema in the route table. */
export function downloadsSources(route: Pick<RouteSpec, 'body'>): boolean {
  const { body } = route;
  return body instanceof z.ZodObject && sourceFields.some((field) => field in body.shape);
}

/**
 * Memory (which also buys CPU), timeout of streamed answers, and the room on /tmp that the output
 * of a file route needs, in sources' worth, by the route's area. Image and PDF work decodes whole
 * pages in memory, reading metadata and PDF structure included; media work runs ffmpeg, which
 * uses every core it is given (3008 MiB is about two vCPUs). File routes also run their async
 * jobs, so their timeout is what a conversion may take; response streaming allows up to 15 minutes.
 *
 * Output room: an image may come out uncompressed (BMP, TIFF: 400 MB for a 100-megapixel frame,
 * more for an animation) after an intermediate PNG for formats sharp cannot read; pdf-split writes
 * every range and then their ZIP, pdf-to-image up to 2000 rasterized pages; a media re-encode can
 * be many times its source (an hour of MP3 is about 635 MB of WAV), so media takes all Lambda has.
 */
const byTag: Record<
  RouteSpec['tag'],
  { file: number; other: number; fileTimeout: number; outputRoom: number }
> = {
  Image: { file: 2048, other: 2048, fileTimeout: 120, outputRoom: 2 },
  PDF: { file: 2048, other: 2048, fileTimeout: 300, outputRoom: 3 },
  Media: { file: 3008, other: 1024, fileTimeout: 900, outputRoom: 10 },
  // Password hashing (argon2, bcrypt, scrypt) is CPU-bound: more memory answers sooner.
  Crypto: { file: 512, other: 512, fileTimeout: 60, outputRoom: 0 },
  Text: { file: 256, other: 256, fileTimeout: 60, outputRoom: 0 },
  System: { file: 256, other: 256, fileTimeout: 60, outputRoom: 0 },
  Jobs: { file: 256, other: 256, fileTimeout: 60, outputRoom: 0 },
  Documents: { file: 2048, other: 2048, fileTimeout: 120, outputRoom: 2 },
};

/**
 * /tmp for a route: the largest tier's source, plus the output's room when the answer is a file,
 * rounded up to 512 MiB and capped at Lambda's maximum. A route that downloads nothing keeps the
 * included 512 MiB.
 */
function ephemeralFor(route: Pick<RouteSpec, 'kind' | 'tag' | 'body'>): number {
  if (!downloadsSources(route)) return ephemeralLimitsMiB.included;
  const outputRoom = route.kind === 'file' ? byTag[route.tag].outputRoom : 0;
  const needed = Math.ceil((largestSourceMiB * (1 + outputRoom)) / 512) * 512;
  return Math.min(ephemeralLimitsMiB.max, needed);
}

export function sizingFor(route: Pick<RouteSpec, 'kind' | 'tag' | 'body'>): FunctionSizing {
  const area = byTag[route.tag];
  const ephemeralMiB = ephemeralFor(route);
  if (route.kind === 'file') return { memoryMiB: area.file, timeoutSeconds: area.fileTimeout, ephemeralMiB };
  return { memoryMiB: area.other, timeoutSeconds: bufferedTimeoutSeconds, ephemeralMiB };
}

/** The gateway authorizer: a key lookup and a policy, nothing more. */
export const authorizerSizing: FunctionSizing = {
  memoryMiB: 256,
  timeoutSeconds: 10,
  ephemeralMiB: ephemeralLimitsMiB.included,
};
