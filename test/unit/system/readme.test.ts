import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { tierNames, tiers } from '#shared/tiers.ts';

const readme = readFileSync('README.md', 'utf8');

describe('README', () => {
  it('shows the two commands, and CI runs its test command and nothing else', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    const ci = readFileSync('.ci/run', 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#') && !/^(set|cd) /.test(line));
    expect(ci).toEqual(['npm ci && npm test']);
  });

  it('has an example for every route of the route table', () => {
    const examples = readme.slice(readme.indexOf('## Routes, one example each'));
    for (const route of routes.filter((entry) => entry.path !== '/docs/{asset}')) {
      const path = route.path.replace('{jobId}', '<jobId>');
      // The docs page is opened in a browser; every other route has a command.
      const example =
        route.path === '/docs' ? '$API/docs' : route.method === 'GET' ? `get ${path} ` : `post ${path} `;
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

  it('states the limits of every tier and the full load command in its Security section', () => {
    const start = readme.indexOf('## Security\n');
    expect(start).toBeGreaterThan(-1);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const megabytes = (bytes: number) => (bytes >= 1e9 ? `${bytes / 1e9} GB` : `${bytes / 1e6} MB`);
    const duration = (seconds: number) => (seconds < 600 ? `${seconds} s` : `${seconds / 60} min`);
    for (const name of tierNames) {
      const row = section.split('\n').find((line) => line.startsWith(`| ${name} |`));
      expect(row, name).toBeDefined();
      const cells = row!.split('|').map((cell) => cell.trim());
      const limits = tiers[name];
      expect(cells[3], name).toContain(String(limits.requestsPerMinute));
      expect(cells.slice(4, 8), name).toEqual([
        megabytes(limits.maxSourceBytes),
        duration(limits.maxMediaSeconds),
        String(limits.maxBatchFiles),
        name === 'free' ? 'no' : 'yes',
      ]);
    }
    expect(section).toMatch(/^npm run load -- --seconds \d+ --concurrency \d+/m);
  });
});
