import { NestedStack, Validations } from 'aws-cdk-lib';
import * as budgets from 'aws-cdk-lib/aws-budgets';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import {
  alarmSettings,
  functionAlarms,
  jobsFailedInternalMetric,
  type WatchedFunction,
  wafBlockedMetric,
} from './alarms.ts';
import { type DashboardFamily, serviceDashboard } from './dashboard.ts';

export interface MonitoringProps {
  /** The service stack's name: alarm names, the dashboard's and the metrics' namespace. */
  serviceName: string;
  families: DashboardFamily[];
  authorizer: WatchedFunction;
  webAcl: wafv2.CfnWebACL;
  /** Where alarm notifications are mailed (context `alarmEmail`); unset: the topic only. */
  alarmEmail?: string | undefined;
  /** A monthly cost budget for the whole account in USD (context `monthlyBudgetUsd`); unset: none. */
  monthlyBudgetUsd?: number | undefined;
}

/**
 * Alarms, the dashboard and the optional account budget, in a nested stack of their own: with
 * three or four alarms for each of some forty functions they would crowd the service stack towards
 * CloudFormation's 500 resources.
 */
export class Monitoring extends NestedStack {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;
  readonly budget: budgets.CfnBudget | undefined;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id, { description: `Alarms and dashboard of ${props.serviceName}` });
    const namespace = props.serviceName;
    const prefix = props.serviceName;

    this.topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${props.serviceName} alarms`,
      enforceSSL: true,
    });
    // The topic policy replaces SNS's default one: CloudWatch and Budgets of this account may publish.
    for (const service of ['cloudwatch.amazonaws.com', 'budgets.amazonaws.com']) {
      this.topic.addToResourcePolicy(
        new iam.PolicyStatement({
          actions: ['sns:Publish'],
          principals: [new iam.ServicePrincipal(service)],
          resources: [this.topic.topicArn],
          conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
        }),
      );
    }
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm and budget notifications carry alarm names and numbers, nothing secret; the AWS-managed SNS key would stop CloudWatch and Budgets from publishing, and a customer-managed key only for this is not worth its cost.',
    });

    const notify = new actions.SnsAction(this.topic);
    const watch = (alarm: cloudwatch.Alarm) => {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
      this.alarms.push(alarm);
    };
    for (const watched of [...props.families.flatMap((family) => family.functions), props.authorizer]) {
      for (const alarm of functionAlarms(this, namespace, prefix, watched)) watch(alarm);
    }

    const blocked = wafBlockedMetric(props.webAcl, this.region);
    watch(
      blocked.createAlarm(this, 'waf-blocked', {
        alarmName: `${prefix}-waf-blocked`,
        alarmDescription: `The free tier's per-IP rule blocked ${alarmSettings.wafBlocked} requests or more in 5 minutes. See docs/operations.md, "WAF blocked".`,
        threshold: alarmSettings.wafBlocked,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    const jobsFailed = jobsFailedInternalMetric(namespace);
    watch(
      jobsFailed.createAlarm(this, 'jobs-failed', {
        alarmName: `${prefix}-jobs-failed`,
        alarmDescription:
          'An async job failed on our side (a 5xx, or its worker stopped) in the last 5 minutes. See docs/operations.md, "Async job failures".',
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    this.dashboard = serviceDashboard(this, {
      name: props.serviceName,
      namespace,
      families: props.families,
      edge: { blocked, authorizer: props.authorizer, jobsFailed },
    });

    this.budget =
      props.monthlyBudgetUsd === undefined ? undefined : this.accountBudget(props.monthlyBudgetUsd, props);
  }

  /** Mails when the month's actual cost passes 80 % of the budget, or its forecast passes 100 %. */
  private accountBudget(limitUsd: number, props: MonitoringProps): budgets.CfnBudget {
    if (!Number.isFinite(limitUsd) || limitUsd <= 0) {
      throw new Error(`monthlyBudgetUsd must be a positive number of USD, got ${limitUsd}`);
    }
    const subscribers = [
      { subscriptionType: 'SNS', address: this.topic.topicArn },
      ...(props.alarmEmail ? [{ subscriptionType: 'EMAIL', address: props.alarmEmail }] : []),
    ];
    const notice = (notificationType: 'ACTUAL' | 'FORECASTED', threshold: number) => ({
      notification: {
        notificationType,
        comparisonOperator: 'GREATER_THAN',
        threshold,
        thresholdType: 'PERCENTAGE',
      },
      subscribers,
    });
    return new budgets.CfnBudget(this, 'AccountBudget', {
      budget: {
        budgetName: `${props.serviceName}-account-monthly`,
        budgetType: 'COST',
        timeUnit: 'MONTHLY',
        budgetLimit: { amount: limitUsd, unit: 'USD' },
      },
      notificationsWithSubscribers: [notice('ACTUAL', 80), notice('FORECASTED', 100)],
    });
  }
}
