import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeStartupFailure, gatewayVariables, readGatewayEnv } from '../../../infra/local/start-env.ts';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const where = { port: 3000, host: '127.0.0.1' };

describe('the environment of npm start', () => {
  it("README's configuration table states the allowed values of every variable it reads", () => {
    // The service's own variables a local user sets, read by shared/config.ts.
    const service = [
      'SOURCE_ALLOW_PRIVATE',
      'SOURCE_TIMEOUT_MS',
      'WEBHOOK_RETRY_DELAYS_MS',
      'JOB_RESULT_URL_SECONDS',
      'LOG_LEVEL',
      'LOG_FORMAT',
    ];
    for (const name of [...gatewayVariables, ...service]) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      const cells = row!.split('|').map((cell) => cell.trim());
      expect(cells, name).toHaveLength(6);
      expect(cells[3], `${name}: allowed values`).not.toBe('');
    }
  });

  it('reports every bad value in one line that names the variable', () => {
    expect(() => readGatewayEnv({ WEBHOOK_SECRET: 'short', PORT: '-1' })).toThrow(
      /^Invalid environment: PORT must be a port number .*; WEBHOOK_SECRET must be at least 16 characters/,
    );
    expect(readGatewayEnv({})).toMatchObject({ PORT: 3000, HOST: '127.0.0.1', LOCAL_ISOLATION: 'workers' });
  });

  it('keeps 8 workers warm for 60 s unless told otherwise, and refuses counts it cannot honour', () => {
    expect(readGatewayEnv({})).toMatchObject({ LOCAL_WARM_WORKERS: 8, LOCAL_IDLE_SECONDS: 60 });
    expect(readGatewayEnv({ LOCAL_WARM_WORKERS: '0', LOCAL_IDLE_SECONDS: '900' })).toMatchObject({
      LOCAL_WARM_WORKERS: 0,
      LOCAL_IDLE_SECONDS: 900,
    });
    expect(() => readGatewayEnv({ LOCAL_WARM_WORKERS: '65' })).toThrow(
      /LOCAL_WARM_WORKERS must be an integer from 0 to 64/,
    );
    expect(() => readGatewayEnv({ LOCAL_IDLE_SECONDS: '0.5' })).toThrow(
      /LOCAL_IDLE_SECONDS must be an integer from 1 to 3600/,
    );
  });

  it('names a busy or forbidden port, a foreign host, and passes other messages on as their first line', () => {
    expect(describeStartupFailure(Object.assign(new Error('x'), { code: 'EADDRINUSE' }), where)).toMatch(
      /^PORT 3000 on 127.0.0.1 is already in use: .*set PORT to another port/,
    );
    expect(describeStartupFailure(Object.assign(new Error('x'), { code: 'EACCES' }), where)).toMatch(
      /set PORT to 1024/,
    );
    expect(describeStartupFailure(Object.assign(new Error('x'), { code: 'EADDRNOTAVAIL' }), where)).toMatch(
      /^HOST 127.0.0.1/,
    );
    expect(describeStartupFailure(new Error('Invalid configuration: LOG_LEVEL: bad\n    at x'), where)).toBe(
      'Invalid configuration: LOG_LEVEL: bad (README.md, "Configuration", lists what each variable takes).',
    );
  });
});
