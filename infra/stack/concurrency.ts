import type { RouteSpec } from '#shared/routes.ts';
import { tiers } from '#shared/tiers.ts';
import { defaultFreeTierClients, planRequestsPerMinute } from './throttle.ts';

/**
 * Reserved concurrency: the most containers a function may run at once, so that a flood of calls
 * that gets past the gateway's limits is throttled (429 at the gateway, a retry for an async job)
 * instead of being billed without end; and, being reserved, a flood on one route cannot starve
 * the others. Lambda keeps 100 of the account's concurrency unreserved, so everything reserved
 * here must fit in the account's limit less 100.
 *
 * How a function's figure is reached (see docs/operations.md, "Cost ceilings"):
 *
 * 1. The rate the gateway lets through to one route while every tier is at its limit: the whole
 *    free pool (10 per minute per IP, and all anonymous callers together at most the free usage
 *    plan's 10 × freeTierClients per minute), one pro key (100 per minute) and one enterprise key
 *    (1000 per minute). With 100 free clients that is 2100 per minute, 35 per second.
 * 2. Times how long one call of the family takes, from docs/benchmarks.md rounded up: that is the
 *    concurrency needed to serve it all (Little's law), at least `minimum`.
 * 3. At most the family's cap, what the operator accepts to pay for per function at once; the
 *    heavy families are capped well below their need, so a flood on them is throttled, not billed.
 */
export const unreservedMinimum = 100;

/** AWS's default concurrency limit per account and region; new accounts may start lower. */
export const defaultAccountConcurrency = 1000;

const minimum = 5;

/**
 * Seconds per call (typical, rounded up) and the cap per function, by route family. With some 80
 * functions the caps of the heavy families are what keeps the total within a default account's 900.
 */
export const families: Record<RouteSpec['tag'] | 'Authorizer', { seconds: number; cap: number }> = {
  Text: { seconds: 0.05, cap: 10 },
  System: { seconds: 0.1, cap: 10 },
  Jobs: { seconds: 0.1, cap: 10 },
  // Password hashing (argon2, bcrypt, scrypt) holds a container for a few hundred ms.
  Crypto: { seconds: 0.5, cap: 20 },
  Image: { seconds: 2, cap: 15 },
  // Drawing a code takes milliseconds; reading one from a photo or PDF pages up to a few seconds.
  Codes: { seconds: 1, cap: 10 },
  PDF: { seconds: 3, cap: 10 },
  // A media call holds its container for tens of seconds (up to 15 minutes for a long job): at
  // 3 GB each, 10 at once are about $1.80 an hour at most per function.
  Media: { seconds: 20, cap: 10 },
  // A browser render holds a 2 GB container for a few seconds (up to the 30 s load budget).
  Documents: { seconds: 5, cap: 10 },
  // OCR holds a 2 GB container a few seconds a page (minutes for a long document, as a job).
  OCR: { seconds: 10, cap: 10 },
  // Every request passes the authorizer, including those with a made-up key that WAF cannot count.
  // Counted at a whole second per call (cold starts, key-list reads) so that it is not what
  // throttles real traffic first.
  Authorizer: { seconds: 1, cap: 50 },
};

/** Requests per second that reach one route with every tier at its limit (step 1). */
export function designRequestsPerSecond(freeTierClients = defaultFreeTierClients): number {
  const perMinute =
    planRequestsPerMinute('free', freeTierClients) +
    tiers.pro.requestsPerMinute +
    tiers.enterprise.requestsPerMinute;
  return perMinute / 60;
}

/** The reserved concurrency of one function of the family. */
export function reservedConcurrencyFor(
  family: keyof typeof families,
  freeTierClients = defaultFreeTierClients,
): number {
  const { seconds, cap } = families[family];
  const needed = Math.ceil(designRequestsPerSecond(freeTierClients) * seconds);
  return Math.min(cap, Math.max(minimum, needed));
}

/** Refuses a stack whose reservations would leave the account less than Lambda's unreserved minimum. */
export function assertReservationsFit(reserved: readonly number[], accountConcurrency: number): void {
  const total = reserved.reduce((sum, n) => sum + n, 0);
  if (total > accountConcurrency - unreservedMinimum) {
    throw new Error(
      `The functions reserve ${total} concurrent executions, but an account limit of ${accountConcurrency} leaves only ${accountConcurrency - unreservedMinimum} to reserve (Lambda keeps ${unreservedMinimum} unreserved). Ask AWS to raise the account's concurrency, or set -c accountConcurrency to the limit the account really has, or -c reservedConcurrency=false to deploy without ceilings.`,
    );
  }
}
