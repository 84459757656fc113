import { engineVersions } from '#functions/status/engines.ts';
import { config } from '#shared/config.ts';
import { jsonResponse } from '#shared/http/respond.ts';
import { createGetHandler } from '#shared/http/stack.ts';
import { type StatusView, statusRoute } from '#shared/routes/system.ts';

export const handler = createGetHandler(statusRoute, async ({ caller, limits }) => {
  const status: StatusView = {
    status: 'ok',
    version: config.SERVICE_VERSION,
    time: new Date().toISOString(),
    tier: caller.tier,
    limits: {
      requestsPerMinute: limits.requestsPerMinute,
      maxSourceBytes: limits.maxSourceBytes,
      maxMediaSeconds: limits.maxMediaSeconds,
    },
    engines: await engineVersions(),
  };
  return jsonResponse(200, status, { 'Cache-Control': 'no-store' });
});
