import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from './event.ts';
import { loadHandler } from './handlers.ts';
import { type InvokeResult, invokeHandler } from './invoke.ts';
import { type PoolOptions, WorkerPools } from './pool.ts';
import { runApart } from './run-apart.ts';
import { functionSizing } from './sizing.ts';

/** How the gateway runs a function: in worker processes (as Lambda does) or in its own process. */
export interface Invoker {
  invoke(
    functionName: string,
    event: APIGatewayProxyEvent,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<InvokeResult>;
  invokeAsync(functionName: string, payload: unknown): void;
  close(): Promise<void>;
}

/** Each function in its own pool of worker processes, with its Lambda memory size and timeout. */
export function workerInvoker(options: PoolOptions = {}): Invoker {
  const pools = new WorkerPools(functionSizing, options);
  return {
    invoke: (functionName, event, invokeOptions) => pools.invoke(functionName, event, invokeOptions),
    invokeAsync: (functionName, payload) => pools.invokeAsync(functionName, payload),
    close: () => pools.close(),
  };
}

/**
 * The handlers in the gateway's own process: no isolation, no timeout and no memory size, but
 * module mocks of a test reach the handlers (test/hardening/ssrf-dns.test.ts replaces the resolver).
 */
export const inProcessInvoker: Invoker = {
  async invoke(functionName, event, { timeoutMs }) {
    const { handler } = await loadHandler(functionName);
    const { memoryMiB } = functionSizing(functionName);
    return invokeHandler(handler, event, lambdaContext(functionName, timeoutMs, memoryMiB));
  },
  invokeAsync: runApart,
  close: async () => {},
};
