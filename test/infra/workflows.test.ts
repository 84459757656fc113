import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../../layers/layer.ts';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string>; environment?: string }>;
}

const read = (name: string) => {
  const text = readFileSync(join(projectRoot, '.github', 'workflows', name), 'utf8');
  return { text, workflow: parse(text) as Workflow };
};
const steps = (workflow: Workflow) => Object.values(workflow.jobs).flatMap((job) => job.steps);
const runs = (workflow: Workflow) => steps(workflow).map((step) => step.run ?? '');

describe('CI and deploy workflows', () => {
  it('checks pull requests on Node 24: npm ci, npm test, synth without credentials, cdk diff', () => {
    const { workflow } = read('ci.yml');
    expect(Object.keys(workflow.on)).toContain('pull_request');
    for (const step of steps(workflow).filter((s) => s.uses?.startsWith('actions/setup-node'))) {
      expect(step.with?.['node-version']).toBe(24);
    }
    const commands = runs(workflow);
    expect(commands).toEqual(expect.arrayContaining(['npm ci', 'npm test', 'npm run synth']));
    expect(commands.some((command) => command.startsWith('npx cdk diff'))).toBe(true);
    const test = workflow.jobs.test!;
    expect(test.steps.some((step) => step.uses?.startsWith('aws-actions/'))).toBe(false);
  });

  it('deploys main with GitHub OIDC and no long-lived keys', () => {
    const { workflow, text } = read('deploy.yml');
    expect(workflow.on.push).toEqual({ branches: ['main'] });
    const deploy = workflow.jobs.deploy!;
    expect(deploy.permissions).toMatchObject({ 'id-token': 'write' });
    const credentials = deploy.steps.find((step) =>
      step.uses?.startsWith('aws-actions/configure-aws-credentials'),
    );
    expect(credentials?.with?.['role-to-assume']).toBeTruthy();
    const commands = runs(workflow);
    const testedAt = commands.indexOf('npm test');
    expect(testedAt).toBeGreaterThanOrEqual(0);
    expect(testedAt).toBeLessThan(commands.findIndex((command) => command.includes('cdk deploy')));
    // The office function's container image is built by cdk deploy, so Docker is set up before it.
    const dockerAt = deploy.steps.findIndex((step) => step.uses?.startsWith('docker/setup-buildx-action'));
    const deployAt = deploy.steps.findIndex((step) => step.run?.includes('cdk deploy'));
    expect(dockerAt).toBeGreaterThanOrEqual(0);
    expect(dockerAt).toBeLessThan(deployAt);
    for (const { text: source } of [read('ci.yml'), { text }]) {
      expect(source).not.toMatch(/aws-access-key-id|aws-secret-access-key|AWS_SECRET_ACCESS_KEY/i);
    }
  });

  it('runs every test in a random order once a day', () => {
    const { workflow } = read('nightly.yml');
    expect(workflow.on.schedule).toEqual([{ cron: expect.stringMatching(/^\S+ \S+ \* \* \*$/) }]);
    expect(runs(workflow)).toEqual(expect.arrayContaining(['npm ci', 'npm run test:shuffled']));
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
    expect(manifest.scripts['test:shuffled']).toMatch(/ vitest run --coverage --sequence\.shuffle$/);
  });
});
