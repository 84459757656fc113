import type { FunctionSizing } from '#shared/routes/sizing.ts';
import { routes } from '#shared/routes.ts';

/**
 * A function's memory size and timeout, from the row the CDK stack sizes it with: the first row of
 * the route table that names the function (rows sharing a function share its sizing).
 */
export function functionSizing(functionName: string): FunctionSizing {
  const route = routes.find((row) => row.function === functionName);
  if (!route) throw new Error(`no route runs function ${functionName}`);
  return route.sizing;
}
