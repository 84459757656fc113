import { takeCoverage } from 'node:v8';

/**
 * Loaded into every Node process a test starts while coverage runs (see setup.ts). Node writes a
 * process's V8 coverage when it exits, but the local gateway ends its Lambda workers with SIGKILL,
 * which skips that write; so the coverage counted so far is written every half second instead
 * (each write holds only what ran since the previous one).
 */
if (process.env.NODE_V8_COVERAGE) setInterval(() => takeCoverage(), 500).unref();
