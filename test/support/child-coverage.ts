import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/**
 * Loaded into every Node process a test starts while coverage runs (see setup.ts). It records the
 * process's V8 coverage through the inspector and writes what ran since the last write every half
 * second and at exit: the local gateway ends its workers with SIGKILL, which leaves no exit.
 * Each file is written under a temporary name and then renamed, so vitest, which reads the folder
 * after each test file, never reads a file half written, even from a process killed mid-write.
 */
const folder = process.env.TEST_CHILD_COVERAGE_DIR;
const project = new URL('../../', import.meta.url).href;

interface ScriptCoverage {
  url: string;
}

if (folder) {
  // Node made the folder when it collected coverage itself; now the first writer makes it.
  mkdirSync(folder, { recursive: true });
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  let written = 0;
  // A same-thread inspector session answers synchronously, so this also works in an exit handler.
  const write = () =>
    session.post('Profiler.takePreciseCoverage', (error, taken) => {
      if (error) return;
      const result = (taken.result as ScriptCoverage[]).filter(
        (script) => script.url.startsWith(project) && !script.url.includes('/node_modules/'),
      );
      if (result.length === 0) return;
      const path = join(folder, `coverage-${process.pid}-${written++}`);
      writeFileSync(`${path}.partial`, JSON.stringify({ result }));
      renameSync(`${path}.partial`, `${path}.json`);
    });
  setInterval(write, 500).unref();
  process.on('exit', write);
}
