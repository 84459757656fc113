import { Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { routes } from '#shared/routes.ts';
import { tiers } from '#shared/tiers.ts';

/** The contract's window for rate limits. */
export const freeTierWindowSeconds = 60;

export const freeTierRateLimitedBody = {
  error: 'rate_limit_exceeded',
  message: `The free tier allows ${tiers.free.requestsPerMinute} requests per minute per client IP; retry after the time in Retry-After, or send the x-api-key of a paid tier.`,
};

/**
 * The paths of the route table's quotaFree rows (the docs page, its assets, openapi.yaml) as one
 * regular expression on the URI path, whatever stage or base path comes before them.
 */
export const quotaFreePathPattern = `/(${routes
  .filter((route) => route.quotaFree)
  .map((route) =>
    route.path
      .slice(1)
      .replaceAll('.', '\\.')
      .replace(/\{\w+\}/g, '[^/]+'),
  )
  .join('|')})$`;

/**
 * The free tier's per-IP limit: a WAF rate-based rule on the API stage that counts requests per
 * client IP over a 60 s window, but only requests that carry no x-api-key (keyed requests are
 * throttled by their usage plan; a made-up key skips this rule and is refused 401 by the
 * authorizer, see docs/deploy.md for what bounds those), and not the quotaFree paths. Over the
 * limit WAF itself answers 429 with the contract's body and Retry-After.
 */
export class FreeTierWaf extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: { stage: apigateway.Stage }) {
    super(scope, id);
    const metric = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${Stack.of(this).stackName}-${name}`,
    });
    // "Header present" the way AWS documents it: a value longer than 0 bytes. GE 0 would also
    // match an empty `x-api-key:` header, which would then escape the per-IP count.
    const hasApiKey: wafv2.CfnWebACL.StatementProperty = {
      sizeConstraintStatement: {
        fieldToMatch: { singleHeader: { Name: 'x-api-key' } },
        comparisonOperator: 'GT',
        size: 0,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    const isQuotaFree: wafv2.CfnWebACL.StatementProperty = {
      regexMatchStatement: {
        fieldToMatch: { uriPath: {} },
        regexString: quotaFreePathPattern,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric('web-acl'),
      customResponseBodies: {
        'rate-limited': { contentType: 'APPLICATION_JSON', content: JSON.stringify(freeTierRateLimitedBody) },
      },
      rules: [
        {
          name: 'free-tier-per-ip',
          priority: 0,
          statement: {
            rateBasedStatement: {
              limit: tiers.free.requestsPerMinute,
              evaluationWindowSec: freeTierWindowSeconds,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                andStatement: {
                  statements: [
                    { notStatement: { statement: hasApiKey } },
                    { notStatement: { statement: isQuotaFree } },
                  ],
                },
              },
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'rate-limited',
                responseHeaders: [
                  { name: 'Retry-After', value: String(freeTierWindowSeconds) },
                  { name: 'Access-Control-Allow-Origin', value: '*' },
                ],
              },
            },
          },
          visibilityConfig: metric('free-tier-per-ip'),
        },
      ],
    });
    const association = new wafv2.CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // The stage ARN is built from names, so CloudFormation would not otherwise wait for the stage.
    association.node.addDependency(props.stage);
  }
}
