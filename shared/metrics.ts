import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * CloudWatch embedded metric format (EMF), written as part of the one log line a request or a job
 * already writes: CloudWatch Logs turns the line into metrics, so no call is made per request.
 * Powertools builds the format; its objects are filled and emptied within one synchronous call,
 * so concurrent requests in one process (the local gateway) never see each other's values.
 *
 * Dimensions are chosen for what they cost (every distinct combination is a billed metric):
 * all request metrics by route; only the request count also by tier and by error code.
 */

/** The stack sets the namespace to its own name, so that two deployments in one account stay apart. */
export const metricsNamespace = process.env.POWERTOOLS_METRICS_NAMESPACE || 'FileConversionApi';
/** The `service` dimension of every metric. */
export const metricsService = 'file-conversion-api';

/** Metric names, shared with the alarms and the dashboard of the stack. */
export const metricNames = {
  requests: 'Requests',
  responses4xx: 'Responses4xx',
  responses5xx: 'Responses5xx',
  duration: 'Duration',
  bytesIn: 'BytesIn',
  bytesOut: 'BytesOut',
  engineTime: 'EngineTime',
  jobs: 'Jobs',
  jobsFailed: 'JobsFailed',
  jobsFailedInternal: 'JobsFailedInternal',
  webhooksUndelivered: 'WebhooksUndelivered',
} as const;

/** What one request's log line says, in numbers. */
export interface RequestFacts {
  route: string;
  tier: string;
  status: number;
  /** The `error` code of a 4xx or 5xx answer. */
  errorCode?: string | undefined;
  durationMs: number;
  bytesIn: number;
  bytesOut?: number | undefined;
  /** Time spent in the route's own work, downloads excluded; unknown for routes without work. */
  engineMs?: number | undefined;
}

export interface JobFacts {
  route: string;
  status: 'succeeded' | 'failed';
  /** The status code of the job's error, when it failed. */
  errorStatus?: number | undefined;
  webhookDelivered: boolean;
}

type EmfFields = Record<string, unknown> & {
  _aws: { Timestamp: number; CloudWatchMetrics: unknown[] };
};

const disabled = /^(true|1)$/i.test(process.env.POWERTOOLS_METRICS_DISABLED ?? '');
const metricsOf = () => new Metrics({ namespace: metricsNamespace, serviceName: metricsService });
const byRoute = metricsOf();
const byTier = metricsOf();
const byErrorCode = metricsOf();
const jobs = metricsOf();

/** Serializes and empties a Metrics object (the public API's own reset, without its console). */
function takeFrom(metrics: Metrics): EmfFields {
  const emf = metrics.serializeMetrics() as EmfFields;
  metrics.clearMetrics();
  metrics.clearDimensions();
  return emf;
}

/** Several EMF documents as one: their directives side by side, their values (which agree) merged. */
function merge(first: EmfFields, ...others: EmfFields[]): EmfFields {
  const merged: EmfFields = {
    ...first,
    _aws: { ...first._aws, CloudWatchMetrics: [...first._aws.CloudWatchMetrics] },
  };
  for (const other of others) {
    const { _aws, ...values } = other;
    Object.assign(merged, values);
    merged._aws.CloudWatchMetrics.push(..._aws.CloudWatchMetrics);
  }
  return merged;
}

/** The EMF fields of one request's log line, built by Powertools from scratch. */
export function serializeRequestMetrics(facts: RequestFacts): EmfFields {
  byRoute
    .addDimensions({ route: facts.route })
    .addMetric(metricNames.requests, MetricUnit.Count, 1)
    .addMetric(metricNames.responses4xx, MetricUnit.Count, facts.status >= 400 && facts.status < 500 ? 1 : 0)
    .addMetric(metricNames.responses5xx, MetricUnit.Count, facts.status >= 500 ? 1 : 0)
    .addMetric(metricNames.duration, MetricUnit.Milliseconds, facts.durationMs)
    .addMetric(metricNames.bytesIn, MetricUnit.Bytes, facts.bytesIn);
  if (facts.bytesOut !== undefined) byRoute.addMetric(metricNames.bytesOut, MetricUnit.Bytes, facts.bytesOut);
  if (facts.engineMs !== undefined)
    byRoute.addMetric(metricNames.engineTime, MetricUnit.Milliseconds, facts.engineMs);

  byTier
    .addDimensions({ route: facts.route, tier: facts.tier })
    .addMetric(metricNames.requests, MetricUnit.Count, 1);
  if (facts.errorCode === undefined) return merge(takeFrom(byRoute), takeFrom(byTier));
  byErrorCode
    .addDimensions({ route: facts.route, errorCode: facts.errorCode })
    .addMetric(metricNames.requests, MetricUnit.Count, 1);
  return merge(takeFrom(byRoute), takeFrom(byTier), takeFrom(byErrorCode));
}

/**
 * The directives (namespace, dimension names, metric names and units) depend only on which facts
 * a request has, not on their values: Powertools builds them once per shape (eight at most), and
 * each request only fills in its values, which costs a few microseconds instead of about a hundred
 * (Powertools re-reads the environment on every call; scripts/bench/metrics.ts measures both).
 */
const directivesByShape = new Map<string, unknown[]>();

/** The EMF fields of one request's log line. */
export function requestMetrics(facts: RequestFacts): Record<string, unknown> {
  if (disabled) return {};
  const shape = `${facts.bytesOut !== undefined}/${facts.engineMs !== undefined}/${facts.errorCode !== undefined}`;
  let directives = directivesByShape.get(shape);
  if (!directives) {
    directives = serializeRequestMetrics(facts)._aws.CloudWatchMetrics;
    directivesByShape.set(shape, directives);
  }
  return {
    _aws: { Timestamp: Date.now(), CloudWatchMetrics: directives },
    service: metricsService,
    route: facts.route,
    tier: facts.tier,
    ...(facts.errorCode === undefined ? {} : { errorCode: facts.errorCode }),
    [metricNames.requests]: 1,
    [metricNames.responses4xx]: facts.status >= 400 && facts.status < 500 ? 1 : 0,
    [metricNames.responses5xx]: facts.status >= 500 ? 1 : 0,
    [metricNames.duration]: facts.durationMs,
    [metricNames.bytesIn]: facts.bytesIn,
    ...(facts.bytesOut === undefined ? {} : { [metricNames.bytesOut]: facts.bytesOut }),
    ...(facts.engineMs === undefined ? {} : { [metricNames.engineTime]: facts.engineMs }),
  };
}

/**
 * The EMF fields of a finished job's log line: by route, and for the whole service (what the
 * alarm watches). An internal failure is a 5xx error or a worker that stopped (abandoned job).
 */
export function jobMetrics(facts: JobFacts): Record<string, unknown> {
  if (disabled) return {};
  const failed = facts.status === 'failed';
  jobs.addDimensions({ route: facts.route });
  jobs.addDimensions({});
  jobs
    .addMetric(metricNames.jobs, MetricUnit.Count, 1)
    .addMetric(metricNames.jobsFailed, MetricUnit.Count, failed ? 1 : 0)
    .addMetric(
      metricNames.jobsFailedInternal,
      MetricUnit.Count,
      failed && (facts.errorStatus ?? 500) >= 500 ? 1 : 0,
    )
    .addMetric(metricNames.webhooksUndelivered, MetricUnit.Count, facts.webhookDelivered ? 0 : 1);
  return takeFrom(jobs);
}
