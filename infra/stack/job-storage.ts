import { Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';
import { UPLOADS_PREFIX } from '#shared/source/own-upload.ts';

type Grantee = IGrantable & IConstruct;

/** The contract keeps job records and results for 24 h; S3 expires objects at day granularity. */
export const jobRetentionDays = 1;

/**
 * Where async jobs live: a private, encrypted bucket whose objects expire after a day, and the
 * secret that signs webhook deliveries (functions are given its ARN, never its value).
 */
export class JobStorage extends Construct {
  readonly bucket: s3.Bucket;
  readonly webhookSecret: secretsmanager.Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      lifecycleRules: [
        {
          id: 'expire-jobs',
          expiration: Duration.days(jobRetentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        // Uploads are read through a 24 h link; a day later they are gone, whatever else changes.
        { id: 'expire-uploads', prefix: UPLOADS_PREFIX, expiration: Duration.days(jobRetentionDays) },
      ],
      // Browsers PUT files straight to a presigned upload URL: only that, from any page.
      cors: [
        {
          allowedMethods: [s3.HttpMethods.PUT],
          allowedOrigins: ['*'],
          allowedHeaders: ['content-type', 'content-length'],
          exposedHeaders: ['ETag'],
          maxAge: 3000,
        },
      ],
      // Job data is disposable by design: nothing in it outlives a day anyway.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.webhookSecret = new secretsmanager.Secret(this, 'WebhookSecret', {
      description: 'Key of the X-Signature HMAC on async job webhooks',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });

    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket only holds job records and results that expire after a day and are reached through the API; access is already traced by CloudTrail and the functions logs, and a second bucket for server access logs would outlive the data it describes.',
    });
    Validations.of(this.webhookSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Customers verify webhook signatures with this key; rotating it automatically would break their verification without notice. It is rotated by hand with notice, as docs/deploy.md describes.',
    });
  }

  /** File functions write job records and results and sign webhooks. */
  grantJobRunner(grantee: Grantee): void {
    this.bucket.grantReadWrite(grantee);
    this.webhookSecret.grantRead(grantee);
    this.acknowledgeBucketGrant(grantee, [
      's3:GetObject*',
      's3:GetBucket*',
      's3:List*',
      's3:DeleteObject*',
      's3:Abort*',
    ]);
  }

  /** GET /jobs/{jobId} reads records and presigns result downloads. */
  grantJobReader(grantee: Grantee): void {
    this.bucket.grantRead(grantee);
    this.acknowledgeBucketGrant(grantee, ['s3:GetObject*', 's3:GetBucket*', 's3:List*']);
  }

  /**
   * `POST /uploads` presigns a PUT and a GET of one object under uploads/: a presigned URL acts with
   * its signer's permissions, so the function may put and read objects there, and nothing else.
   */
  grantUploader(grantee: Grantee): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject'],
        resources: [this.bucket.arnForObjects(`${UPLOADS_PREFIX}*`)],
      }),
    );
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.bucketArnAsSeenBy(grantee)}>/${UPLOADS_PREFIX}*]`,
      reason: 'Uploads are objects with generated names, all under the uploads/ prefix of the jobs bucket.',
    });
  }

  /** The action groups Bucket.grant* writes, all confined to this bucket and its objects. */
  private acknowledgeBucketGrant(grantee: Grantee, actions: readonly string[]): void {
    const bucketArn = this.bucketArnAsSeenBy(grantee);
    Validations.of(grantee).acknowledge(
      ...actions.map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${action} as Bucket.grant* spells it, on the jobs bucket and its objects only.`,
      })),
      {
        id: `AwsSolutions-IAM5[Resource::<${bucketArn}>/*]`,
        reason: 'Job records and results are objects with generated names, all under the jobs bucket.',
      },
    );
  }

  /**
   * How the bucket's ARN appears in a grantee's policy, as cdk-nag names it: in a nested stack (a
   * route family) it arrives as a parameter, which CDK names after the bucket's unique id.
   */
  private bucketArnAsSeenBy(grantee: Grantee): string {
    const bucket = this.bucket.node.defaultChild as s3.CfnBucket;
    return Stack.of(grantee) === Stack.of(this)
      ? `${Stack.of(this).getLogicalId(bucket)}.Arn`
      : `referenceto${Names.nodeUniqueId(bucket.node)}Arn`;
  }
}
