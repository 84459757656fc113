import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { handler as assetHandler } from '#functions/docs/assets/handler.ts';
import { handler as pageHandler } from '#functions/docs/handler.ts';
import { inlineScriptText } from '#functions/docs/swagger-ui.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const require = createRequire(import.meta.url);

const getAsset = (asset: string) => {
  const event = apiEvent(undefined, { method: 'GET', path: `/docs/${asset}` });
  event.resource = '/docs/{asset}';
  event.pathParameters = { asset };
  return call(assetHandler, event);
};

const getPage = (headers: Record<string, string> = {}) => {
  const event = apiEvent(undefined, { method: 'GET', path: '/docs' });
  event.headers = { ...event.headers, ...headers };
  return call(pageHandler, event);
};
const inlineScripts = (html: string) =>
  [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, script]) => script!);

describe('GET /docs', () => {
  it('is one self-contained HTML page: Swagger UI inline, the document by a relative URL', async () => {
    const answer = await getPage();
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['X-Request-Id']).toMatch(/^test-/);
    const html = answer.body.toString('utf8');
    expect(html).not.toMatch(/<link rel="stylesheet"|<script src=/);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    const css = await readFile(require.resolve('swagger-ui-dist/swagger-ui.css'), 'utf8');
    expect(html).toContain(`<style>${css.slice(0, 2000)}`);
    const [bundle, start] = inlineScripts(html);
    expect(bundle).toContain('SwaggerUIBundle');
    expect(bundle).not.toContain('sourceMappingURL');
    expect(start).toContain("new URL('openapi.yaml', base)");
  });

  it('allows exactly its two inline scripts by hash, and blob: only for images and media', async () => {
    const answer = await getPage();
    const scripts = inlineScripts(answer.body.toString('utf8'));
    expect(scripts).toHaveLength(2);
    const policy = String(answer.headers['Content-Security-Policy']);
    const hashes = scripts.map(
      (script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`,
    );
    const directives: Record<string, string[]> = Object.fromEntries(
      policy.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]),
    );
    expect(directives['script-src']).toEqual(hashes);
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['img-src']).toEqual(["'self'", 'data:', 'blob:']);
    expect(directives['media-src']).toEqual(['blob:']);
    const withBlob = Object.entries(directives).filter(([, sources]) => sources.includes('blob:'));
    expect(withBlob.map(([name]) => name).sort()).toEqual(['img-src', 'media-src']);
  });

  it('keeps the inlined script from closing its element early', () => {
    expect(inlineScriptText('a("</script>"); /<!--/; "<SCRIPT>"')).toBe(
      'a("\\x3C/script>"); /\\x3C!--/; "\\x3CSCRIPT>"',
    );
    expect(() => inlineScriptText('/\\<!--/')).toThrow();
  });

  it('is cacheable: an ETag, and 304 without a body for a caller that holds it', async () => {
    const first = await getPage();
    const etag = String(first.headers.ETag);
    expect(etag).toMatch(/^"[\w+/]{27}"$/);
    expect(first.headers['Cache-Control']).toMatch(/max-age=\d+/);
    for (const held of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await getPage({ 'If-None-Match': held });
      expect(again.statusCode, held).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.ETag).toBe(etag);
    }
    expect((await getPage({ 'if-none-match': '"other"' })).statusCode).toBe(200);
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
