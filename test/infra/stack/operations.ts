import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { metricsService } from '#shared/metrics.ts';
import { authorizerSizing } from '#shared/routes/sizing.ts';
import { routeName } from '#shared/routes/types.ts';
import { routes } from '#shared/routes.ts';
import { alarmSettings } from '../../../infra/stack/alarms.ts';
import {
  defaultAccountConcurrency,
  designRequestsPerSecond,
  families,
  reservedConcurrencyFor,
  unreservedMinimum,
} from '../../../infra/stack/concurrency.ts';
import { FileConversionStack } from '../../../infra/stack/stack.ts';
import { projectRoot } from '../../../layers/layer.ts';
import { logicalIdOf, type Resource, type Synthesized, sharedOptions, sharedSynthesis } from '../synth.ts';

type Dimension = { Name: string; Value: unknown };
type AlarmMetric = {
  Id: string;
  Expression?: string;
  MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: Dimension[] }; Stat: string };
};

const { alarmEmail, monthlyBudgetUsd } = sharedOptions;
let synth: Synthesized;
/** Every stack's resources in one map, references across stacks resolved (test/infra/synth.ts). */
let parent: Record<string, Resource>;
let nested: Record<string, Resource>;

beforeAll(async () => {
  synth = await sharedSynthesis();
  parent = synth.resources;
  nested = synth.resourcesOf(synth.stack.monitoring);
}, 240_000);

const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);
const functionNames = [...new Set(routes.map((route) => route.function))];
const rowOf = (name: string) => routes.find((route) => route.function === name)!;
/** The `route` dimension of a function's request metrics: its folder, dashed (`docs/assets` → `docs-assets`). */
const metricRouteOf = (name: string) => name.replaceAll('/', '-');
const fnId = (name: string) => logicalIdOf(synth.stack.functions.get(name)!);
const alarms = () => ofType(nested, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
const alarmNamed = (name: string) => {
  const alarm = alarms().find((props) => props.AlarmName === `${synth.stack.stackName}-${name}`);
  if (!alarm) throw new Error(`no alarm ${name}`);
  return alarm;
};
/** The function a dimension value of the monitoring stack refers to. */
const functionOfDimension = (value: unknown) => (value as { Ref: string }).Ref;

describe('cost ceilings: reserved concurrency per function family', () => {
  it('reserves what the family needs at every tier limit, capped, for every function and the authorizer', () => {
    expect(designRequestsPerSecond()).toBe(35);
    for (const name of functionNames) {
      const reserved = parent[fnId(name)]!.Properties.ReservedConcurrentExecutions;
      expect(reserved, name).toBe(reservedConcurrencyFor(rowOf(name).tag));
      expect(reserved, name).toBeGreaterThanOrEqual(5);
    }
    const authorizer = parent[logicalIdOf(synth.stack.authorizerFunction)]!;
    expect(authorizer.Properties.ReservedConcurrentExecutions).toBe(reservedConcurrencyFor('Authorizer'));
    // The heavy families are held well below what a flood at every limit would take.
    expect(reservedConcurrencyFor('Media')).toBe(families.Media.cap);
    expect(families.Media.cap).toBeLessThan(designRequestsPerSecond() * families.Media.seconds);
  });

  it("leaves the account's unreserved minimum free", () => {
    const total = ofType(parent, 'AWS::Lambda::Function').reduce(
      (sum, [, fn]) => sum + Number(fn.Properties.ReservedConcurrentExecutions ?? 0),
      0,
    );
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(defaultAccountConcurrency - unreservedMinimum);
  });

  it('refuses an account whose limit cannot hold the reservations, and can deploy without them', () => {
    const stackWith = (props: { accountConcurrency?: number; reservedConcurrency?: boolean }) =>
      new FileConversionStack(new App(), 'Small', { bundles: synth.bundles, layers: synth.layers, ...props });
    expect(() => stackWith({ accountConcurrency: 400 })).toThrow(/leaves only 300 to reserve/);
    const free = stackWith({ accountConcurrency: 400, reservedConcurrency: false });
    // Read from the constructs: a template of every nested stack takes seconds to synthesize.
    const functions = free.node.findAll().filter((construct) => construct instanceof CfnFunction);
    expect(functions).toHaveLength(free.functions.size + 1);
    for (const fn of functions) expect(fn.reservedConcurrentExecutions).toBeUndefined();
  });
});

describe('metrics namespace', () => {
  it('gives every function the deployment name as the namespace of its request metrics', () => {
    for (const [, fn] of ofType(parent, 'AWS::Lambda::Function')) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe(synth.stack.stackName);
    }
  });

  it("names each function's route dimension as its handler registers it: by the row it serves", () => {
    const rowNames = new Map<string, string>();
    for (const file of readdirSync(join(projectRoot, 'shared', 'routes'))) {
      const rows = readFileSync(join(projectRoot, 'shared', 'routes', file), 'utf8');
      for (const [, constant, fn] of rows.matchAll(
        /export const (\w+) = defineRoute\(\{[\s\S]*?function: '([^']+)'/g,
      )) {
        rowNames.set(constant!, fn!);
      }
    }
    for (const name of functionNames) {
      const source = readFileSync(join(projectRoot, 'functions', name, 'handler.ts'), 'utf8');
      const registered = /create(?:Json|File|Get)Handler\(\s*(\w+)/.exec(source)?.[1];
      expect(rowNames.get(registered ?? ''), name).toBe(name);
      expect(routeName(rowOf(name)), name).toBe(metricRouteOf(name));
    }
  });
});

describe('alarms and their topic', () => {
  it('sends every alarm, and its recovery, to one topic mailed to the context address, over TLS only', () => {
    const [topicId] = ofType(nested, 'AWS::SNS::Topic')[0]!;
    expect(ofType(nested, 'AWS::SNS::Topic')).toHaveLength(1);
    expect(ofType(nested, 'AWS::SNS::Subscription').map(([, s]) => s.Properties)).toEqual([
      expect.objectContaining({ Protocol: 'email', Endpoint: alarmEmail, TopicArn: { Ref: topicId } }),
    ]);
    expect(alarms().length).toBeGreaterThan(functionNames.length * 3);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions, String(alarm.AlarmName)).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions, String(alarm.AlarmName)).toEqual([{ Ref: topicId }]);
      expect(String(alarm.AlarmDescription)).toContain('docs/operations.md');
    }
    const policy = JSON.stringify(ofType(nested, 'AWS::SNS::TopicPolicy')[0]![1].Properties);
    expect(policy).toContain('"aws:SecureTransport":"false"');
    expect(policy).toContain('cloudwatch.amazonaws.com');
    expect(policy).toContain('budgets.amazonaws.com');
  });

  it('watches the 5xx rate of every function: answered 5xx (request lines) and failed invocations', () => {
    for (const name of functionNames) {
      const alarm = alarmNamed(`${name.replace('/', '-')}-5xx-rate`);
      expect(alarm).toMatchObject({
        Threshold: alarmSettings.serverErrorPercent,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      const metrics = alarm.Metrics as AlarmMetric[];
      const expression = metrics.find((m) => m.Expression)!.Expression!;
      expect(expression).toContain('100 * (FILL(answered5xx, 0) + FILL(failed, 0)) / invocations');
      const byId = Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat!]));
      expect(byId.answered5xx?.Metric).toMatchObject({
        Namespace: synth.stack.stackName,
        MetricName: 'Responses5xx',
        Dimensions: expect.arrayContaining([
          { Name: 'service', Value: metricsService },
          { Name: 'route', Value: metricRouteOf(name) },
        ]),
      });
      for (const id of ['failed', 'invocations']) {
        const dimension = byId[id]!.Metric.Dimensions.find((d) => d.Name === 'FunctionName')!;
        expect(functionOfDimension(dimension.Value), `${name} ${id}`).toBe(fnId(name));
      }
    }
  });

  it('watches throttles of every function and the authorizer', () => {
    for (const name of [...functionNames, 'authorizer']) {
      const alarm = alarmNamed(`${name.replace('/', '-')}-throttles`);
      expect(alarm).toMatchObject({
        MetricName: 'Throttles',
        Namespace: 'AWS/Lambda',
        Threshold: alarmSettings.throttles,
      });
    }
  });

  it('watches p99 duration against 80 % of each function timeout', () => {
    for (const name of functionNames) {
      const alarm = alarmNamed(`${name.replace('/', '-')}-duration-p99`);
      expect(alarm).toMatchObject({
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Threshold: rowOf(name).sizing.timeoutSeconds * 1000 * 0.8,
      });
    }
    expect(alarmNamed('authorizer-duration-p99').Threshold).toBe(authorizerSizing.timeoutSeconds * 800);
  });

  it('watches the async runs Lambda drops, for every function that runs jobs, and only those', () => {
    const dropped = alarms().filter((alarm) => alarm.MetricName === 'AsyncEventsDropped');
    const fileFunctions = functionNames.filter((name) => rowOf(name).kind === 'file');
    expect(fileFunctions.length).toBeGreaterThan(0);
    expect(
      dropped.map((alarm) => functionOfDimension((alarm.Dimensions as Dimension[])[0]!.Value)).sort(),
    ).toEqual(fileFunctions.map(fnId).sort());
    for (const alarm of dropped) expect(alarm).toMatchObject({ Threshold: 1, Statistic: 'Sum' });
  });

  it("watches the free tier rule's blocked count, by the web ACL and rule metric names", () => {
    const alarm = alarmNamed('waf-blocked');
    const acl = Object.values(parent).find((r) => r.Type === 'AWS::WAFv2::WebACL')!.Properties as {
      VisibilityConfig: { MetricName: string };
      Rules: { VisibilityConfig: { MetricName: string } }[];
    };
    expect(alarm).toMatchObject({
      Namespace: 'AWS/WAFV2',
      MetricName: 'BlockedRequests',
      Threshold: alarmSettings.wafBlocked,
    });
    expect(alarm.Dimensions).toEqual(
      expect.arrayContaining([
        { Name: 'WebACL', Value: acl.VisibilityConfig.MetricName },
        { Name: 'Rule', Value: acl.Rules[0]!.VisibilityConfig.MetricName },
        { Name: 'Region', Value: { Ref: 'AWS::Region' } },
      ]),
    );
  });

  it('watches async job failures on our side, from the job worker metric', () => {
    expect(alarmNamed('jobs-failed')).toMatchObject({
      Namespace: synth.stack.stackName,
      MetricName: 'JobsFailedInternal',
      Dimensions: [{ Name: 'service', Value: metricsService }],
      Threshold: 1,
      Statistic: 'Sum',
    });
  });
});

describe('dashboard', () => {
  /** The dashboard body with every CloudFormation reference written as REF. */
  const dashboardBody = () => {
    const [, dashboard] = ofType(nested, 'AWS::CloudWatch::Dashboard')[0]!;
    const parts = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'REF')).join('')) as {
      widgets: { y: number; properties: { title: string; metrics: unknown[][] } }[];
    };
  };

  it('has the edge on top, then one row per route family with requests, errors, durations and throttles', () => {
    const rows = new Map<number, string[]>();
    for (const widget of dashboardBody().widgets) {
      rows.set(widget.y, [...(rows.get(widget.y) ?? []), widget.properties.title]);
    }
    const tags = [...new Set(routes.map((route) => route.tag))];
    const [edge, ...familyRows] = [...rows.entries()].sort(([a], [b]) => a - b).map(([, titles]) => titles);
    expect(edge!.every((title) => /^(Edge|Async jobs):/.test(title))).toBe(true);
    expect(familyRows.map((titles) => titles[0]!.split(':')[0])).toEqual(tags);
    for (const titles of familyRows) {
      expect(titles.map((title) => title.split(': ')[1])).toEqual([
        'requests',
        '4xx (left) and 5xx (right)',
        'p99 duration (left) and engine time (right), ms',
        'throttles (left) and concurrent executions (right)',
      ]);
    }
  });

  it('plots each route of a family by its route dimension', () => {
    const body = JSON.stringify(dashboardBody());
    for (const name of functionNames) expect(body, name).toContain(`"route","${metricRouteOf(name)}"`);
  });
});

describe('account budget', () => {
  it('alarms on the account month at 80 % actual and 100 % forecast, to the topic and the address', () => {
    const budgets = ofType(nested, 'AWS::Budgets::Budget');
    expect(budgets).toHaveLength(1);
    const props = budgets[0]![1].Properties as {
      Budget: Record<string, unknown>;
      NotificationsWithSubscribers: { Notification: Record<string, unknown>; Subscribers: unknown[] }[];
    };
    expect(props.Budget).toMatchObject({
      BudgetType: 'COST',
      TimeUnit: 'MONTHLY',
      BudgetLimit: { Amount: monthlyBudgetUsd, Unit: 'USD' },
    });
    expect(
      props.NotificationsWithSubscribers.map((n) => [
        n.Notification.NotificationType,
        n.Notification.Threshold,
      ]),
    ).toEqual([
      ['ACTUAL', 80],
      ['FORECASTED', 100],
    ]);
    for (const { Subscribers } of props.NotificationsWithSubscribers) {
      expect(Subscribers).toEqual([
        { SubscriptionType: 'SNS', Address: expect.objectContaining({ Ref: expect.any(String) }) },
        { SubscriptionType: 'EMAIL', Address: alarmEmail },
      ]);
    }
  });

  it('is left out, as is the mail subscription, without their context values', () => {
    const bare = new FileConversionStack(new App(), 'Bare', { bundles: synth.bundles, layers: synth.layers });
    const template = Template.fromStack(bare.monitoring);
    template.resourceCountIs('AWS::Budgets::Budget', 0);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    template.resourceCountIs('AWS::SNS::Topic', 1);
  });
});

describe('checks', () => {
  it('keeps the monitoring in a nested stack, well inside 500 resources', () => {
    expect(Object.keys(nested).length).toBeLessThan(450);
  });
});
