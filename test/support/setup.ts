import '../../infra/local/install-awslambda.ts';

// With `--coverage`, vitest points NODE_V8_COVERAGE at a folder it reads after each test file.
// Node processes a test starts (the local gateway and its workers) inherit it; the preload makes
// the workers, which end by SIGKILL, write what they ran before they are killed.
const preload = `--import=${new URL('./child-coverage.ts', import.meta.url).href}`;
if (process.env.NODE_V8_COVERAGE && !process.env.NODE_OPTIONS?.includes(preload)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${preload}`.trim();
}
