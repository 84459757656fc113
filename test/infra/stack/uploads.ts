import { beforeAll, describe, expect, it } from 'vitest';
import { uploadsRoute } from '#shared/routes/jobs.ts';
import { logicalIdOf, type Resource, type Synthesized, sharedSynthesis } from '../synth.ts';

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

let synth: Synthesized;
let resources: Record<string, Resource>;

beforeAll(async () => {
  synth = await sharedSynthesis();
  resources = synth.resources;
}, 240_000);

/** Every statement of the policies attached to a role. */
const statementsOfRole = (roleId: string): Statement[] =>
  Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);

describe('uploads (POST /uploads) in the jobs bucket', () => {
  it('lets browsers PUT to presigned upload URLs from any page, and nothing else', () => {
    const bucket = resources[logicalIdOf(synth.stack.storage.bucket)]!;
    const cors = bucket.Properties.CorsConfiguration as { CorsRules: Record<string, unknown>[] };
    expect(cors.CorsRules).toEqual([
      expect.objectContaining({
        AllowedMethods: ['PUT'],
        AllowedOrigins: ['*'],
        AllowedHeaders: ['content-type', 'content-length'],
      }),
    ]);
  });

  it('expires uploads after a day by a lifecycle rule of their prefix', () => {
    const bucket = resources[logicalIdOf(synth.stack.storage.bucket)]!;
    const rules = (bucket.Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({
        Id: 'expire-uploads',
        Prefix: 'uploads/',
        ExpirationInDays: 1,
        Status: 'Enabled',
      }),
    );
  });

  it('gives the uploads function PutObject and GetObject on uploads/ only, the bucket name, and no secret', () => {
    const fn = synth.stack.functions.get(uploadsRoute.function)!;
    const properties = resources[logicalIdOf(fn)]!.Properties;
    const env = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const bucketId = logicalIdOf(synth.stack.storage.bucket);
    expect(env.JOBS_BUCKET).toEqual({ Ref: bucketId });
    expect(env.WEBHOOK_SECRET_ARN).toBeUndefined();
    const roleId = (properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const onStorage = statementsOfRole(roleId)
      .filter((statement) =>
        [statement.Action]
          .flat()
          .some((action) => action.startsWith('s3:') || action.startsWith('secretsmanager:')),
      )
      .map((statement) => ({ ...statement, Action: [statement.Action].flat().sort() }));
    expect(onStorage).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject'],
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/uploads/*']] },
      },
    ]);
  });
});
