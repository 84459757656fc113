import { checksumOf } from '#shared/crypto/checksum.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { checksumRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(
  checksumRoute,
  ({ body, workspace, limits, caller, signal, deadline }) =>
    checksumOf(body.sourceUrl, body.algorithm, {
      workspace,
      maxBytes: limits.maxSourceBytes,
      tier: caller.tier,
      signal,
      deadline,
    }),
);
