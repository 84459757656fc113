import { tierNames, tiers } from '#shared/tiers.ts';

/** What a route's function is given in Lambda, and the local gateway gives its workers. */
export interface FunctionSizing {
  memoryMiB: number;
  timeoutSeconds: number;
  /** /tmp, where sources are downloaded and outputs written. */
  ephemeralMiB: number;
}

const MiB = 1024 * 1024;

/**
 * Set in every function's environment, in Lambda and in the local gateway's workers. glibc gives
 * each thread that allocates at once an arena of its own (up to 8 per core) and keeps what an arena
 * freed: libvips's worker threads left a reused process peaking higher after each large image
 * (bare sharp, 50 MP JPEG → WebP four times in one process: 541, 596, 638, 687 MB). With two
 * arenas: 537, 559, 571, 597 MB, for the same CPU time (docs/benchmarks.md, budget 5).
 */
export const allocatorEnvironment = { MALLOC_ARENA_MAX: '2' } as const;

/** Lambda's /tmp: 512 MiB come with every function, 10240 MiB is the most it may have. */
export const ephemeralLimitsMiB = { included: 512, max: 10_240 } as const;

/** The largest source any tier may send: a function that downloads must fit it on /tmp. */
export const largestSourceMiB = Math.ceil(
  Math.max(...tierNames.map((tier) => tiers[tier].maxSourceBytes)) / MiB,
);

/** API Gateway gives up on a buffered integration after 29 s; working on past that wastes money. */
export const bufferedTimeoutSeconds = 29;

/**
 * /tmp for the largest tier's source plus the output's room (in sources' worth), rounded up to
 * 512 MiB and capped at Lambda's maximum.
 */
function ephemeralFor(outputRoom: number): number {
  const needed = Math.ceil((largestSourceMiB * (1 + outputRoom)) / 512) * 512;
  return Math.min(ephemeralLimitsMiB.max, needed);
}

/**
 * A file route: it downloads its sources, writes its output beside them and streams it (response
 * streaming allows up to 15 minutes). File routes also run their async jobs, so the timeout is
 * what one conversion may take. `outputRoom`: how many sources' worth the output may need on /tmp.
 */
export function streamedSizing(
  memoryMiB: number,
  timeoutSeconds: number,
  outputRoom: number,
): FunctionSizing {
  return { memoryMiB, timeoutSeconds, ephemeralMiB: ephemeralFor(outputRoom) };
}

/** A file route that downloads nothing: it makes its file from the request alone (a QR code). */
export function drawnSizing(memoryMiB: number, timeoutSeconds: number): FunctionSizing {
  return { memoryMiB, timeoutSeconds, ephemeralMiB: ephemeralLimitsMiB.included };
}

/** A JSON route, answered within API Gateway's 29 s; `downloads`: it fetches a source to /tmp. */
export function bufferedSizing(memoryMiB: number, downloads: boolean): FunctionSizing {
  const ephemeralMiB = downloads ? ephemeralFor(0) : ephemeralLimitsMiB.included;
  return { memoryMiB, timeoutSeconds: bufferedTimeoutSeconds, ephemeralMiB };
}

/** The gateway authorizer: a key lookup and a policy, nothing more. */
export const authorizerSizing: FunctionSizing = {
  memoryMiB: 256,
  timeoutSeconds: 10,
  ephemeralMiB: ephemeralLimitsMiB.included,
};
