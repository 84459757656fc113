/** Headers every answer carries, from a handler or from the gateway itself. */
export const corsHeaders: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'X-Request-Id, X-Original-Size, X-Output-Size, X-Audio-Bitrate, Content-Disposition, Retry-After, RateLimit, RateLimit-Policy',
};

/** What a browser may send cross-origin, and how long it may cache the answer: API Gateway and the local gateway. */
export const corsPreflight = {
  allowMethods: ['GET', 'POST', 'OPTIONS'],
  allowHeaders: ['Content-Type', 'X-Api-Key', 'X-Marketplace-Proxy-Secret'],
  maxAgeSeconds: 3600,
} as const;

export const preflightHeaders: Record<string, string> = {
  ...corsHeaders,
  'Access-Control-Allow-Methods': corsPreflight.allowMethods.join(', '),
  'Access-Control-Allow-Headers': corsPreflight.allowHeaders.join(', '),
  'Access-Control-Max-Age': String(corsPreflight.maxAgeSeconds),
};

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Lower-cases header names; API Gateway passes them as the client spelled them. */
export function lowerCaseHeaders(headers: Record<string, string | undefined> | null | undefined) {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers ?? {})) result[name.toLowerCase()] = value;
  return result;
}

/** `Content-Disposition` for a file answer; the name is reduced to safe characters. */
export function contentDisposition(fileName: string): string {
  const safe = fileName.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120) || 'file';
  return `inline; filename="${safe}"`;
}
