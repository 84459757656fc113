import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { handler as assetHandler } from '#functions/docs/assets/handler.ts';
import { handler as pageHandler } from '#functions/docs/handler.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const require = createRequire(import.meta.url);

const getAsset = (asset: string) => {
  const event = apiEvent(undefined, { method: 'GET', path: `/docs/${asset}` });
  event.resource = '/docs/{asset}';
  event.pathParameters = { asset };
  return call(assetHandler, event);
};

describe('GET /docs', () => {
  it('is an HTML page that loads Swagger UI from this service, by relative URLs only', async () => {
    const answer = await call(pageHandler, apiEvent(undefined, { method: 'GET', path: '/docs' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['X-Request-Id']).toMatch(/^test-/);
    const html = answer.body.toString('utf8');
    expect(html).toMatch(/<link rel="stylesheet" href="docs\/swagger-ui\.css\?v=[\d.]+">/);
    expect(html).toMatch(/<script src="docs\/swagger-ui-bundle\.js\?v=[\d.]+"><\/script>/);
    expect(html).toContain("new URL('openapi.yaml', base)");
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  it('allows its own inline start script by hash, and no script from elsewhere', async () => {
    const answer = await call(pageHandler, apiEvent(undefined, { method: 'GET', path: '/docs' }));
    const html = answer.body.toString('utf8');
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, script]) => script!);
    expect(inline).toHaveLength(1);
    const policy = String(answer.headers['Content-Security-Policy']);
    const hash = createHash('sha256').update(inline[0]!).digest('base64');
    expect(policy).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(policy).toContain("default-src 'none'");
  });
});

describe('GET /docs/{asset}', () => {
  it.each([
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ])('serves %s from swagger-ui-dist as %s, cacheable, without its source map link', async (asset, type) => {
    const answer = await getAsset(asset);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe(type);
    expect(answer.headers['Cache-Control']).toMatch(/max-age=\d+/);
    const served = answer.body.toString('utf8');
    const original = await readFile(require.resolve(`swagger-ui-dist/${asset}`), 'utf8');
    expect(served).not.toContain('sourceMappingURL');
    expect(served.length).toBeGreaterThan(original.length - 100);
    expect(original.startsWith(served.trimEnd().slice(0, 1000))).toBe(true);
  });

  it.each(['index.html', 'package.json', '..%2Fpackage.json', 'swagger-ui.js.map'])(
    'answers 404 not_found for %s',
    async (asset) => {
      const answer = await getAsset(asset);
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ error: 'not_found' });
    },
  );
});
