import { NestedStack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

export interface RouteFamilyProps {
  /** The route table's tag of the family: Image, PDF, Media, … */
  family: string;
  /** The service stack's name, for the description. */
  serviceName: string;
}

/**
 * The functions of one route family (their roles, policies, log groups and invoke settings), in a
 * nested stack of their own. Each function costs the stack six to eight resources: in one stack
 * the ~80 functions of the contract would pass CloudFormation's 500 resources. The REST API, its
 * methods and the authorizer stay in the service stack, which reaches each function through the
 * nested stack's outputs.
 */
export class RouteFamily extends NestedStack {
  readonly family: string;

  constructor(scope: Construct, id: string, props: RouteFamilyProps) {
    super(scope, id, { description: `${props.family} routes of ${props.serviceName}` });
    this.family = props.family;
  }
}
