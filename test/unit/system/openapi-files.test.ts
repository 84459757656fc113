import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { handler } from '#functions/openapi/handler.ts';
import { generatedTexts } from '#shared/openapi/generate.ts';
import { routes } from '#shared/routes.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url);
const committed = (file: string) => readFile(new URL(file, root), 'utf8');

describe('the committed openapi.yaml', () => {
  it('is what `npm run openapi` makes of the route table now', async () => {
    for (const [file, text] of Object.entries(generatedTexts())) {
      expect(await committed(file), `${file} is stale: run npm run openapi`).toBe(text);
    }
  });

  it('has the TypeScript client types `npm run client` makes of it (clients/typescript/openapi.ts)', async () => {
    const script = new URL('scripts/client.ts', root).pathname;
    await expect(
      run(process.execPath, ['--disable-warning=ExperimentalWarning', script, '--check'], { cwd: root }),
    ).resolves.toMatchObject({ stdout: 'clients/typescript/openapi.ts is up to date\n' });
  });

  it('describes every route of the table and nothing else', async () => {
    const document = parse(await committed('openapi.yaml')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const table = routes.map((route) => `${route.method} ${route.path}`);
    expect(documented.toSorted()).toEqual(table.toSorted());
  });

  it('passes the Redocly linter (recommended rules) with no warning', async () => {
    const cli = new URL('node_modules/@redocly/cli/bin/cli.js', root);
    const { stdout } = await run(process.execPath, [cli.pathname, 'lint', 'openapi.yaml', '--format=json'], {
      cwd: root.pathname,
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    const report = JSON.parse(stdout) as { totals: Record<string, number>; problems: { message: string }[] };
    expect(report.problems.map((problem) => problem.message)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('is served byte for byte by GET /openapi.yaml as application/yaml', async () => {
    const answer = await call(handler, apiEvent(undefined, { method: 'GET', path: '/openapi.yaml' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/yaml; charset=utf-8');
    expect(answer.headers['X-Request-Id']).toMatch(/^test-/);
    expect(answer.body.toString('utf8')).toBe(await committed('openapi.yaml'));
  });
});
