import { Duration, type Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { metricNames, metricsService } from '#shared/metrics.ts';

/** What the alarms watch for, in one place (docs/operations.md explains each). */
export const alarmSettings = {
  period: Duration.minutes(5),
  /** Percent of a function's invocations answered 5xx (or failed outright) in 5 minutes... */
  serverErrorPercent: 5,
  /** ...once it has had this many invocations in those 5 minutes (a single failure is not a rate). */
  serverErrorMinimumInvocations: 10,
  /** Throttled invocations in 5 minutes: the function's reserved concurrency is used up. */
  throttles: 10,
  /** p99 duration over this share of the timeout, three periods in a row. */
  durationShareOfTimeout: 0.8,
  /**
   * Requests the free tier's per-IP rule blocked in 5 minutes. One client over the limit that keeps
   * calling once a second is blocked about 250 times in 5 minutes; 1000 means a flood.
   */
  wafBlocked: 1000,
} as const;

/** One function as the alarms and the dashboard see it. */
export interface WatchedFunction {
  /** The function folder (`image-convert`), or `authorizer`. */
  name: string;
  fn: lambda.IFunction;
  timeoutSeconds: number;
  /** The `route` dimension of its request metrics; none for the authorizer. */
  metricRoute?: string | undefined;
  /** Whether it runs async jobs (a file route). */
  runsJobs: boolean;
}

/** A request metric of one route, from the request log lines (shared/metrics.ts). */
export function routeMetric(
  namespace: string,
  metricName: string,
  route: string,
  statistic = 'Sum',
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace,
    metricName,
    dimensionsMap: { service: metricsService, route },
    statistic,
    period: alarmSettings.period,
    label: route,
  });
}

/** The alarms of one function: 5xx rate, throttles, duration near the timeout, async drops. */
export function functionAlarms(scope: Stack, namespace: string, prefix: string, watched: WatchedFunction) {
  const { fn, name } = watched;
  const period = alarmSettings.period;
  const alarms: cloudwatch.Alarm[] = [];
  const id = (what: string) => `${name.replace(/[^A-Za-z0-9]/g, '-')}-${what}`;

  // A handled 5xx is an answer (the request line counts it); a crash or a timeout is a Lambda error.
  const serverErrors = new cloudwatch.MathExpression({
    expression: watched.metricRoute
      ? `IF(invocations >= ${alarmSettings.serverErrorMinimumInvocations}, 100 * (FILL(answered5xx, 0) + FILL(failed, 0)) / invocations, 0)`
      : `IF(invocations >= ${alarmSettings.serverErrorMinimumInvocations}, 100 * FILL(failed, 0) / invocations, 0)`,
    usingMetrics: {
      invocations: fn.metricInvocations({ period, statistic: 'Sum' }),
      failed: fn.metricErrors({ period, statistic: 'Sum' }),
      ...(watched.metricRoute
        ? { answered5xx: routeMetric(namespace, metricNames.responses5xx, watched.metricRoute) }
        : {}),
    },
    period,
    label: `${name} 5xx %`,
  });
  alarms.push(
    serverErrors.createAlarm(scope, id('5xx-rate'), {
      alarmName: `${prefix}-${id('5xx-rate')}`,
      alarmDescription: `More than ${alarmSettings.serverErrorPercent} % of ${name}'s invocations answered 5xx or failed in 5 minutes. See docs/operations.md, "5xx rate".`,
      threshold: alarmSettings.serverErrorPercent,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  );
  alarms.push(
    fn.metricThrottles({ period, statistic: 'Sum' }).createAlarm(scope, id('throttles'), {
      alarmName: `${prefix}-${id('throttles')}`,
      alarmDescription: `${name} was throttled ${alarmSettings.throttles} times or more in 5 minutes: its reserved concurrency is used up. See docs/operations.md, "Throttles".`,
      threshold: alarmSettings.throttles,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  );
  const limitMs = Math.round(watched.timeoutSeconds * 1000 * alarmSettings.durationShareOfTimeout);
  alarms.push(
    fn.metricDuration({ period, statistic: 'p99' }).createAlarm(scope, id('duration-p99'), {
      alarmName: `${prefix}-${id('duration-p99')}`,
      alarmDescription: `${name}'s p99 duration was over ${limitMs} ms (80 % of its ${watched.timeoutSeconds} s timeout) for 15 minutes. See docs/operations.md, "Duration near the timeout".`,
      threshold: limitMs,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  );
  if (watched.runsJobs) {
    alarms.push(
      fn.metric('AsyncEventsDropped', { period, statistic: 'Sum' }).createAlarm(scope, id('async-dropped'), {
        alarmName: `${prefix}-${id('async-dropped')}`,
        alarmDescription: `Lambda dropped an async job run of ${name} (not started within the jobs' start window, or out of retries). See docs/operations.md, "Async runs dropped".`,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }
  return alarms;
}

/** The blocked count of the free tier's per-IP rule, read from the web ACL's own settings. */
export function wafBlockedMetric(webAcl: wafv2.CfnWebACL, region: string): cloudwatch.Metric {
  const aclMetric = (webAcl.visibilityConfig as wafv2.CfnWebACL.VisibilityConfigProperty).metricName;
  const rules = webAcl.rules as wafv2.CfnWebACL.RuleProperty[];
  const rule = rules.find((candidate) => candidate.statement && 'rateBasedStatement' in candidate.statement);
  if (!rule) throw new Error('The web ACL has no rate-based rule to watch');
  const ruleMetric = (rule.visibilityConfig as wafv2.CfnWebACL.VisibilityConfigProperty).metricName;
  return new cloudwatch.Metric({
    namespace: 'AWS/WAFV2',
    metricName: 'BlockedRequests',
    dimensionsMap: { WebACL: aclMetric, Rule: ruleMetric, Region: region },
    statistic: 'Sum',
    period: alarmSettings.period,
  });
}

/** Async jobs that failed on our side (5xx, or a worker that stopped), over the whole service. */
export function jobsFailedInternalMetric(namespace: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace,
    metricName: metricNames.jobsFailedInternal,
    dimensionsMap: { service: metricsService },
    statistic: 'Sum',
    period: alarmSettings.period,
  });
}
