/**
 * Runs what CI runs, in a fresh clone of the committed HEAD, so that nothing this working tree has
 * (an installed node_modules, uncommitted files, a package that is not in the lock) can hide a
 * broken first step.
 *
 *   npm run check:clean-install   # npm ci in a clean copy, then checks the pinned Node 24 arrived
 *   npm run check:workflows       # every step of .github/workflows that runs before AWS credentials
 *                                 # are taken (npm ci, npm test, npm run synth), in a clean copy
 *
 * Options: --keep leaves the copy in place; --list prints the steps without running them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { parse } from 'yaml';

interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  jobs: Record<string, { steps: Step[] }>;
}
interface Command {
  run: string;
  env: Record<string, string>;
}

const root = join(import.meta.dirname, '..');
const args = new Set(process.argv.slice(2));
const mode = args.has('workflows') ? 'workflows' : args.has('install') ? 'install' : undefined;
if (!mode) {
  console.error('usage: node scripts/clean-copy.ts install|workflows [--keep] [--list]');
  process.exit(2);
}

/** The run steps of every job up to its first AWS step, each command once, in workflow order. */
function nonAwsSteps(workflows: Workflow[]): Command[] {
  const commands = new Map<string, Command>();
  for (const workflow of workflows) {
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps) {
        if (step.uses?.startsWith('aws-actions/')) break;
        if (step.run && !commands.has(step.run))
          commands.set(step.run, { run: step.run, env: step.env ?? {} });
      }
    }
  }
  return [...commands.values()];
}

const folder = join(root, '.github', 'workflows');
const workflows = readdirSync(folder)
  .filter((name) => /\.ya?ml$/.test(name))
  .map((name) => parse(readFileSync(join(folder, name), 'utf8')) as Workflow);
const steps: Command[] = mode === 'install' ? [{ run: 'npm ci', env: {} }] : nonAwsSteps(workflows);

if (args.has('--list')) {
  for (const step of steps) console.log(step.run);
  process.exit(0);
}

/**
 * The environment of a new shell: this tree's node_modules/.bin (put first by `npm run`) and npm's
 * own variables are left out, so the copy runs on what it installs itself.
 */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== 'INIT_CWD' && name !== 'NODE') env[name] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !entry.includes(`${sep}node_modules${sep}`) && !entry.endsWith(`${sep}node_modules`))
    .join(delimiter);
  return env;
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): number {
  const result = spawnSync('bash', ['-eo', 'pipefail', '-c', command], { cwd, env, stdio: 'inherit' });
  return result.status ?? 1;
}

const copy = mkdtempSync(join(tmpdir(), 'clean-copy-'));
const env = cleanEnvironment();
console.log(`clean copy of the committed HEAD (uncommitted changes are not in it): ${copy}`);
let failed = sh(`git clone --quiet --no-hardlinks ${JSON.stringify(root)} .`, copy, env);
for (const step of steps) {
  if (failed) break;
  console.log(`\n▶ ${step.run}`);
  const started = Date.now();
  failed = sh(step.run, copy, { ...env, ...step.env });
  console.log(`${failed ? '✗' : '✓'} ${step.run} (${Math.round((Date.now() - started) / 1000)} s)`);
}
if (!failed && mode === 'install') {
  // The lock must install as it is, and bring the project's own Node 24 with it.
  failed = sh(
    'git diff --exit-code --stat -- package-lock.json && node_modules/.bin/node --version | grep -q "^v24\\." && echo "✓ lock file unchanged; Node $(node_modules/.bin/node --version) installed"',
    copy,
    env,
  );
}
if (failed || args.has('--keep')) {
  console.log(`\nthe copy stays for a look: ${copy}`);
} else {
  rmSync(copy, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
