import { log } from '#shared/log.ts';
import { lambdaContext } from './event.ts';
import { loadHandler } from './handlers.ts';
import { invokeHandler } from './invoke.ts';
import { functionSizing } from './sizing.ts';

/** Runs one asynchronous invocation of a function; failures are logged, as Lambda would. */
export function runApart(functionName: string, payload: unknown): void {
  const work = async () => {
    const { handler } = await loadHandler(functionName);
    const { timeoutSeconds, memoryMiB } = functionSizing(functionName);
    const context = lambdaContext(functionName, timeoutSeconds * 1000, memoryMiB);
    const result = await invokeHandler(handler, payload as never, context);
    if (!Buffer.isBuffer(result.body)) result.body.resume();
    await result.done;
  };
  work().catch((error: unknown) => {
    log('error', 'async invocation failed', {
      function: functionName,
      cause: error instanceof Error ? error.stack : String(error),
    });
  });
}
