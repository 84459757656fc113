import { checksumOf } from '#shared/crypto/checksum.ts';
import { checksumBody } from '#shared/crypto/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler(
  'checksum',
  checksumBody,
  ({ body, workspace, limits, caller, signal, deadline }) =>
    checksumOf(body.sourceUrl, body.algorithm, {
      workspace,
      maxBytes: limits.maxSourceBytes,
      tier: caller.tier,
      signal,
      deadline,
    }),
);
