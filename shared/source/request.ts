import type { TierLimits, TierName } from '#shared/tiers.ts';
import type { Workspace } from '#shared/workspace.ts';

/** What a request brings that downloading its sources needs: the handlers' input has all of it. */
export interface SourceRequest {
  workspace: Workspace;
  caller: { tier: TierName };
  limits: TierLimits;
  signal?: AbortSignal | undefined;
  /** When the request must have answered (epoch ms); an async job has none. */
  deadline?: number | undefined;
}
