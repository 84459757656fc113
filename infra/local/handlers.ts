import type { RouteSpec } from '#shared/routes.ts';

const functionsFolder = new URL('../../functions/', import.meta.url);

const modules = new Map<string, Promise<{ handler: unknown }>>();

/**
 * Loads functions/<name>/handler.ts once, on first use, as a Lambda container would. A name may
 * nest folders (`docs/assets`), but every segment is plain, so it never leaves functions/.
 */
export function loadHandler(functionName: RouteSpec['function']): Promise<{ handler: unknown }> {
  const cached = modules.get(functionName);
  if (cached) return cached;
  if (!/^[a-z0-9-]+(?:\/[a-z0-9-]+)*$/.test(functionName))
    return Promise.reject(new Error(`no function ${functionName}`));
  const file = new URL(`${functionName}/handler.ts`, functionsFolder).href;
  const loading = import(/* @vite-ignore */ file) as Promise<{ handler: unknown }>;
  modules.set(functionName, loading);
  return loading;
}
