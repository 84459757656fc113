import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';

const readme = readFileSync('README.md', 'utf8');

describe('README', () => {
  it('shows the two commands, and CI runs its test command and nothing else', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
    const ci = readFileSync('.ci/run', 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#') && !/^(set|cd) /.test(line));
    expect(ci).toEqual(['npm install && npm test']);
  });

  it('has an example for every route of the route table', () => {
    const examples = readme.slice(readme.indexOf('## Routes, one example each'));
    for (const route of routes.filter((entry) => entry.path !== '/docs/{asset}')) {
      const path = route.path.replace('{jobId}', '<jobId>');
      const example = route.method === 'GET' ? `$API${path}` : `post ${path} `;
      expect(examples, route.path).toContain(example);
    }
  });

  it('names every variable of the local gateway configuration', () => {
    for (const name of [
      'PORT',
      'API_KEYS',
      'MARKETPLACE_PROXY_SECRET',
      'SOURCE_ALLOW_PRIVATE',
      'S3_ENDPOINT',
      'WEBHOOK_SECRET',
    ]) {
      expect(readme).toContain(`\`${name}\``);
    }
  });
});
