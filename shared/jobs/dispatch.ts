import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { config } from '#shared/config.ts';

let client: LambdaClient | undefined;

/** Created on first use, so that functions that never touch it pay nothing at start. */
const lambda = () =>
  (client ??= new LambdaClient({ ...(config.LAMBDA_ENDPOINT ? { endpoint: config.LAMBDA_ENDPOINT } : {}) }));

/** The event a file function receives when it runs a job instead of an HTTP request. */
export interface JobEvent {
  job: { jobId: string };
}

export const isJobEvent = (event: unknown): event is JobEvent =>
  typeof (event as JobEvent | null)?.job?.jobId === 'string';

/**
 * Runs the job apart: an asynchronous invocation of the same function (in AWS its own name; the
 * local gateway answers the Lambda Invoke API for the function folder's name).
 */
export async function dispatchJob(route: string, jobId: string): Promise<void> {
  const event: JobEvent = { job: { jobId } };
  await lambda().send(
    new InvokeCommand({
      FunctionName: process.env.AWS_LAMBDA_FUNCTION_NAME ?? route,
      InvocationType: 'Event',
      Payload: Buffer.from(JSON.stringify(event)),
    }),
  );
}
