import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { metricNames } from '#shared/metrics.ts';
import { routeMetric, type WatchedFunction } from './alarms.ts';

export interface DashboardFamily {
  /** The route table's tag: Image, PDF, Media, ... */
  family: string;
  functions: WatchedFunction[];
}

const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
  new cloudwatch.GraphWidget({ title, left, right, width: 6, height: 6, period: Duration.minutes(5) });

/**
 * One row per route family: requests by route; 4xx and 5xx by route; p99 duration and engine time
 * by route; throttles and concurrent executions by function. A first row shows the edge: the
 * free tier's per-IP rule, the authorizer and the async jobs.
 */
export function serviceDashboard(
  scope: Construct,
  props: {
    name: string;
    namespace: string;
    families: DashboardFamily[];
    edge: { blocked: cloudwatch.Metric; authorizer: WatchedFunction; jobsFailed: cloudwatch.Metric };
  },
): cloudwatch.Dashboard {
  const { namespace } = props;
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', { dashboardName: props.name });
  const { authorizer } = props.edge;
  dashboard.addWidgets(
    graph('Edge: blocked by the free tier per-IP rule', [props.edge.blocked.with({ label: 'blocked' })]),
    graph(
      'Edge: authorizer invocations and errors',
      [
        authorizer.fn.metricInvocations({ statistic: 'Sum' }),
        authorizer.fn.metricErrors({ statistic: 'Sum' }),
      ],
      [authorizer.fn.metricThrottles({ statistic: 'Sum' })],
    ),
    graph('Async jobs: failed on our side', [
      props.edge.jobsFailed.with({ label: 'failed (5xx or worker gone)' }),
    ]),
    graph(
      'Async jobs: runs dropped by Lambda',
      props.families.flatMap((family) =>
        family.functions
          .filter((watched) => watched.runsJobs)
          .map((watched) =>
            watched.fn.metric('AsyncEventsDropped', { statistic: 'Sum', label: watched.name }),
          ),
      ),
    ),
  );
  for (const { family, functions } of props.families) {
    const routes = functions.flatMap((watched) => (watched.metricRoute ? [watched.metricRoute] : []));
    const byRoute = (metric: string, statistic = 'Sum') =>
      routes.map((route) => routeMetric(namespace, metric, route, statistic));
    dashboard.addWidgets(
      graph(`${family}: requests`, byRoute(metricNames.requests)),
      graph(
        `${family}: 4xx (left) and 5xx (right)`,
        byRoute(metricNames.responses4xx),
        byRoute(metricNames.responses5xx),
      ),
      graph(
        `${family}: p99 duration (left) and engine time (right), ms`,
        byRoute(metricNames.duration, 'p99'),
        byRoute(metricNames.engineTime, 'p99'),
      ),
      graph(
        `${family}: throttles (left) and concurrent executions (right)`,
        functions.map((watched) => watched.fn.metricThrottles({ statistic: 'Sum', label: watched.name })),
        functions.map((watched) =>
          watched.fn.metric('ConcurrentExecutions', { statistic: 'Maximum', label: watched.name }),
        ),
      ),
    );
  }
  return dashboard;
}
