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
  return (method, pathname) => {
    for (const compiled of paths.values()) {
      const found = compiled.pattern.exec(pathname);
      if (!found) continue;
      const methods = compiled.routes.map((route) => route.method);
      if (method === 'OPTIONS') return { kind: 'preflight', methods };
      const route = compiled.routes.find((candidate) => candidate.method === method);
      if (!route) return { kind: 'method_not_allowed', methods };
      const values = compiled.names.map((_name, index) => decodePathSegment(found[index + 1] ?? ''));
      // A segment with a broken %-escape names no resource (it would otherwise surface as a URIError).
      if (values.some((value) => value === undefined)) return { kind: 'not_found' };
      const entries = compiled.names.map((name, index) => [name, values[index]!]);
      return { kind: 'route', route, pathParameters: entries.length ? Object.fromEntries(entries) : null };
    }
    return { kind: 'not_found' };
  };
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
