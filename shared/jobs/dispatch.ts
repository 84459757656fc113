import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { config } from '#shared/config.ts';
import type { JobEvent } from '#shared/jobs/job-event.ts';

let client: LambdaClient | undefined;

/** Created on first use, so that functions that never touch it pay nothing at start. */
const lambda = () =>
  (client ??= new LambdaClient({ ...(config.LAMBDA_ENDPOINT ? { endpoint: config.LAMBDA_ENDPOINT } : {}) }));

export { isJobEvent, type JobEvent } from '#shared/jobs/job-event.ts';

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
