import { describe, expect, it } from 'vitest';
import {
  jobMetrics,
  metricsNamespace,
  metricsService,
  type RequestFacts,
  requestMetrics,
  serializeRequestMetrics,
} from '#shared/metrics.ts';
import { measureStages, type StageTimes, stage, stageFields } from '#shared/stages.ts';
import { emfDirectives, metricsByDimensions } from '../support/emf.ts';

describe('request metrics (embedded metric format)', () => {
  it('records every request metric by route, and the request count also by tier', () => {
    const line = requestMetrics({
      route: 'image-convert',
      tier: 'pro',
      status: 200,
      durationMs: 812,
      bytesIn: 96,
      bytesOut: 40_000,
      engineMs: 500,
    });
    expect(emfDirectives(line).map((d) => d.Namespace)).toEqual([metricsNamespace, metricsNamespace]);
    expect(metricsByDimensions(line)).toEqual({
      Requests: ['service,route', 'service,route,tier'],
      Responses4xx: ['service,route'],
      Responses5xx: ['service,route'],
      Duration: ['service,route'],
      BytesIn: ['service,route'],
      BytesOut: ['service,route'],
      EngineTime: ['service,route'],
    });
    expect(line).toMatchObject({
      service: metricsService,
      route: 'image-convert',
      tier: 'pro',
      Requests: 1,
      Responses4xx: 0,
      Responses5xx: 0,
      Duration: 812,
      BytesIn: 96,
      BytesOut: 40_000,
      EngineTime: 500,
    });
    const units = Object.fromEntries(emfDirectives(line)[0]!.Metrics.map((m) => [m.Name, m.Unit]));
    expect(units).toMatchObject({ Duration: 'Milliseconds', BytesIn: 'Bytes', Requests: 'Count' });
  });

  it('counts a 4xx and a 5xx, each also by its error code', () => {
    const client = requestMetrics({
      route: 'slugify',
      tier: 'free',
      status: 400,
      errorCode: 'validation_failed',
      durationMs: 2,
      bytesIn: 10,
    });
    expect(client).toMatchObject({ Responses4xx: 1, Responses5xx: 0, errorCode: 'validation_failed' });
    expect(metricsByDimensions(client).Requests).toEqual([
      'service,route',
      'service,route,errorCode',
      'service,route,tier',
    ]);
    // Nothing is measured that was not known: no engine time, no bytes out.
    expect(client).not.toHaveProperty('EngineTime');
    expect(client).not.toHaveProperty('BytesOut');

    const server = requestMetrics({
      route: 'slugify',
      tier: 'free',
      status: 500,
      errorCode: 'internal_error',
      durationMs: 2,
      bytesIn: 10,
    });
    expect(server).toMatchObject({ Responses4xx: 0, Responses5xx: 1, errorCode: 'internal_error' });
  });

  it('keeps nothing of one request for the next (the objects are emptied after each line)', () => {
    requestMetrics({
      route: 'hash',
      tier: 'free',
      status: 413,
      errorCode: 'request_too_large',
      durationMs: 1,
      bytesIn: 1,
      engineMs: 3,
    });
    const next = requestMetrics({
      route: 'uuid',
      tier: 'enterprise',
      status: 200,
      durationMs: 1,
      bytesIn: 2,
    });
    expect(next).not.toHaveProperty('errorCode');
    expect(next).not.toHaveProperty('EngineTime');
    expect(next).toMatchObject({ route: 'uuid', tier: 'enterprise', Requests: 1 });
    expect(emfDirectives(next)).toHaveLength(2);
  });

  it('writes exactly what Powertools writes from scratch, for every shape of request', () => {
    const withoutTimestamp = (emf: Record<string, unknown>) => {
      const { _aws, ...values } = emf as { _aws: { CloudWatchMetrics: unknown } };
      return { directives: _aws.CloudWatchMetrics, values };
    };
    for (const bytesOut of [undefined, 512]) {
      for (const engineMs of [undefined, 40]) {
        for (const [status, errorCode] of [
          [200, undefined],
          [404, 'job_not_found'],
          [502, 'source_unreachable'],
        ] as const) {
          for (const tier of ['free', 'enterprise']) {
            const facts: RequestFacts = {
              route: 'pdf-info',
              tier,
              status,
              errorCode,
              durationMs: 33,
              bytesIn: 70,
              bytesOut,
              engineMs,
            };
            expect(withoutTimestamp(requestMetrics(facts))).toEqual(
              withoutTimestamp(serializeRequestMetrics(facts)),
            );
          }
        }
      }
    }
  });

  it('records finished jobs by route and for the whole service; only server-side failures are internal', () => {
    const failedBySource = jobMetrics({
      route: 'pdf-merge',
      status: 'failed',
      errorStatus: 400,
      webhookDelivered: true,
    });
    expect(metricsByDimensions(failedBySource)).toEqual({
      Jobs: ['service', 'service,route'],
      JobsFailed: ['service', 'service,route'],
      JobsFailedInternal: ['service', 'service,route'],
      WebhooksUndelivered: ['service', 'service,route'],
    });
    expect(failedBySource).toMatchObject({
      Jobs: 1,
      JobsFailed: 1,
      JobsFailedInternal: 0,
      WebhooksUndelivered: 0,
    });
    expect(
      jobMetrics({ route: 'pdf-merge', status: 'failed', errorStatus: 500, webhookDelivered: false }),
    ).toMatchObject({
      JobsFailed: 1,
      JobsFailedInternal: 1,
      WebhooksUndelivered: 1,
    });
    expect(jobMetrics({ route: 'pdf-merge', status: 'succeeded', webhookDelivered: true })).toMatchObject({
      JobsFailed: 0,
      JobsFailedInternal: 0,
    });
  });
});

describe('request stages', () => {
  it('adds up each stage of a request, and reports the engine without its downloads', async () => {
    const times: StageTimes = {};
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const result = await measureStages(times, () =>
      stage('engine', async () => {
        await stage('download', () => wait(30));
        await stage('download', () => wait(30));
        await wait(30);
        return 'done';
      }),
    );
    expect(result).toBe('done');
    expect(times.download).toBeGreaterThanOrEqual(55);
    expect(times.engine).toBeGreaterThanOrEqual(times.download! + 25);
    const fields = stageFields(times);
    expect(fields.downloadMs).toBe(Math.round(times.download!));
    expect(fields.engineMs).toBe(Math.round(times.engine! - times.download!));
    expect(fields).not.toHaveProperty('uploadMs');
  });

  it('runs a stage outside any request as plain work, and passes its failure on', async () => {
    await expect(stage('engine', () => 7)).resolves.toBe(7);
    await expect(
      stage('download', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
  });

  it('keeps the stages of concurrent requests apart', async () => {
    const first: StageTimes = {};
    const second: StageTimes = {};
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await Promise.all([
      measureStages(first, () => stage('download', () => wait(20))),
      measureStages(second, () => stage('engine', () => wait(20))),
    ]);
    expect(Object.keys(first)).toEqual(['download']);
    expect(Object.keys(second)).toEqual(['engine']);
  });
});
