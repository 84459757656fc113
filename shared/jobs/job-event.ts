/**
 * The event a file function receives when it runs a job instead of an HTTP request. Apart from
 * dispatch.ts so that telling the two apart loads no AWS SDK client at a function's start.
 */
export interface JobEvent {
  job: { jobId: string };
}

export const isJobEvent = (event: unknown): event is JobEvent =>
  typeof (event as JobEvent | null)?.job?.jobId === 'string';
