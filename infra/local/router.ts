import type { RouteSpec } from '#shared/routes.ts';

export type RouteMatch =
  | { kind: 'route'; route: RouteSpec; pathParameters: Record<string, string> | null }
  | { kind: 'preflight'; methods: string[] }
  | { kind: 'method_not_allowed'; methods: string[] }
  | { kind: 'not_found' };

interface CompiledPath {
  pattern: RegExp;
  names: string[];
  routes: RouteSpec[];
}

/** Matches method and path against the route table, as API Gateway's resources do. */
export function createRouter(routes: readonly RouteSpec[]): (method: string, pathname: string) => RouteMatch {
  const paths = new Map<string, CompiledPath>();
  for (const route of routes) {
    const compiled = paths.get(route.path) ?? compilePath(route.path);
    compiled.routes.push(route);
    paths.set(route.path, compiled);
  }
  // A path without parameters is found by name; API Gateway, too, prefers it to a parameter.
  const templates = [...paths.entries()].filter(([, compiled]) => compiled.names.length > 0);
  return (method, requested) => {
    // API Gateway routes `/docs/` to the `/docs` resource (the event's path keeps the slash).
    const pathname = requested.length > 1 && requested.endsWith('/') ? requested.slice(0, -1) : requested;
    const literal = paths.get(pathname);
    if (literal && literal.names.length === 0) return matchMethod(literal, method);
    for (const [, compiled] of templates) {
      const found = compiled.pattern.exec(pathname);
      if (!found) continue;
      const matched = matchMethod(compiled, method);
      if (matched.kind !== 'route') return matched;
      const values = compiled.names.map((_name, index) => decodePathSegment(found[index + 1] ?? ''));
      // A segment with a broken %-escape names no resource (it would otherwise surface as a URIError).
      if (values.some((value) => value === undefined)) return { kind: 'not_found' };
      const entries = compiled.names.map((name, index) => [name, values[index]!]);
      return { ...matched, pathParameters: Object.fromEntries(entries) };
    }
    return { kind: 'not_found' };
  };
}

function matchMethod(compiled: CompiledPath, method: string): RouteMatch {
  const methods = compiled.routes.map((route) => route.method);
  if (method === 'OPTIONS') return { kind: 'preflight', methods };
  const route = compiled.routes.find((candidate) => candidate.method === method);
  if (!route) return { kind: 'method_not_allowed', methods };
  return { kind: 'route', route, pathParameters: null };
}

function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function compilePath(path: string): CompiledPath {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const parameter = /^\{(\w+)\}$/.exec(segment);
      if (!parameter?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(parameter[1]);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names, routes: [] };
}
