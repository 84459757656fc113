import type { RouteSpec } from '#shared/routes.ts';

export interface FunctionSizing {
  memoryMiB: number;
  timeoutSeconds: number;
  /** /tmp, where sources are downloaded and outputs written. */
  ephemeralMiB: number;
}

/** API Gateway gives up on a buffered integration after 29 s; working on past that wastes money. */
const bufferedTimeoutSeconds = 29;

/**
 * Memory (which also buys CPU), /tmp and, for streamed answers, timeout by the route's area. Image
 * and PDF work decodes whole pages in memory; media work runs ffmpeg, which uses every core it is
 * given (3008 MiB is about two vCPUs). File routes also run their async jobs, so their timeout is
 * what a conversion may take; response streaming allows up to 15 minutes.
 */
const byTag: Record<
  RouteSpec['tag'],
  { file: number; other: number; fileTimeout: number; ephemeralMiB: number }
> = {
  Image: { file: 2048, other: 1024, fileTimeout: 120, ephemeralMiB: 2048 },
  PDF: { file: 2048, other: 1024, fileTimeout: 300, ephemeralMiB: 4096 },
  Media: { file: 3008, other: 1024, fileTimeout: 900, ephemeralMiB: 10240 },
  // Password hashing (argon2, bcrypt, scrypt) is CPU-bound: more memory answers sooner.
  Crypto: { file: 512, other: 512, fileTimeout: 60, ephemeralMiB: 512 },
  Text: { file: 256, other: 256, fileTimeout: 60, ephemeralMiB: 512 },
  System: { file: 256, other: 256, fileTimeout: 60, ephemeralMiB: 512 },
  Jobs: { file: 256, other: 256, fileTimeout: 60, ephemeralMiB: 512 },
};

export function sizingFor(route: Pick<RouteSpec, 'kind' | 'tag'>): FunctionSizing {
  const area = byTag[route.tag];
  if (route.kind === 'file') {
    return { memoryMiB: area.file, timeoutSeconds: area.fileTimeout, ephemeralMiB: area.ephemeralMiB };
  }
  return { memoryMiB: area.other, timeoutSeconds: bufferedTimeoutSeconds, ephemeralMiB: area.ephemeralMiB };
}

/** The gateway authorizer: a key lookup and a policy, nothing more. */
export const authorizerSizing: FunctionSizing = { memoryMiB: 256, timeoutSeconds: 10, ephemeralMiB: 512 };
