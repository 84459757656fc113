/**
 * Misbehaviour on demand, for the tests of the worker pool only: with LOCAL_WORKER_TEST_HOOKS=1 in
 * the gateway's environment, an invocation whose request carries `x-test-hook` spins the CPU
 * forever (`spin`), blocks without using it (`block`: a handler stuck in a synchronous call),
 * fills the JavaScript heap (`heap`), fills memory outside the heap (`memory`), or starts a
 * process of its own and then blocks (`child`: an engine still running under a stuck handler)
 * before its handler runs; or, after its handler has handed over the whole answer, holds the
 * invocation open a while (`linger`: a slow clean-up, such as a large workspace to remove). Without
 * the variable the header means nothing.
 */
import { spawn } from 'node:child_process';

const enabled = process.env.LOCAL_WORKER_TEST_HOOKS === '1';

/** Never more than this, whatever the pool's memory watch does: the test must not take the machine. */
const OUTSIDE_HEAP_CAP = 1024 * 1024 * 1024;

/** How long `linger` holds an invocation open after its answer's last byte. */
const LINGER_MS = 300;

const hookOf = (event: unknown): string | undefined =>
  enabled ? (event as { headers?: Record<string, string> } | undefined)?.headers?.['x-test-hook'] : undefined;

/** Runs before the handler. */
export async function runTestHook(event: unknown): Promise<void> {
  const hook = hookOf(event);
  if (hook === undefined) return;
  if (hook === 'spin') {
    for (;;) {
      // blocks the event loop, as a runaway regular expression or codec would
    }
  }
  if (hook === 'child') spawn('sleep', ['600'], { stdio: 'ignore' });
  if (hook === 'block' || hook === 'child') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  if (hook === 'heap') {
    const held: string[][] = [];
    for (;;) held.push(Array.from({ length: 100_000 }, (_value, index) => `${index}-${held.length}`));
  }
  if (hook === 'memory') {
    const held: Buffer[] = [];
    for (let total = 0; total < OUTSIDE_HEAP_CAP; total += 16 * 1024 * 1024) {
      held.push(Buffer.alloc(16 * 1024 * 1024, 1));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise(() => {}); // holds it until the pool ends the process
  }
}

/** Runs once the handler has handed over the whole answer, before the invocation ends. */
export async function runLingerHook(event: unknown): Promise<void> {
  if (hookOf(event) === 'linger') await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
}
