import { metricsService } from '#shared/metrics.ts';
import { installStageTracer, type StageName, type StageTracer } from '#shared/stages.ts';

/**
 * X-Ray subsegments for the stages of a request (shared/stages.ts), through Powertools' Tracer.
 * Imported only by code that downloads sources, so only those functions bundle the tracer, and it
 * is loaded only in Lambda with active tracing (Lambda names the X-Ray daemon's address): in tests
 * and in the local gateway, which have no daemon, nothing is loaded and stages are only timed.
 */
const tracingActive = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME && process.env.AWS_XRAY_DAEMON_ADDRESS);

async function loadTracer(): Promise<StageTracer | undefined> {
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  // Sources are fetched on a pinned socket of our own, which the HTTP capture need not wrap.
  const tracer = new Tracer({ serviceName: metricsService, captureHTTPsRequests: false });
  if (!tracer.isTracingEnabled()) return undefined;
  const subsegmentOf = (name: StageName) => tracer.getSegment()?.addNewSubsegment(name);
  return {
    async run(name, work) {
      const parent = tracer.getSegment();
      const subsegment = subsegmentOf(name);
      if (!parent || !subsegment) return work();
      tracer.setSegment(subsegment);
      try {
        return await work();
      } catch (error) {
        subsegment.addError(error as Error);
        throw error;
      } finally {
        subsegment.close();
        tracer.setSegment(parent);
      }
    },
    open(name) {
      const subsegment = subsegmentOf(name);
      return (error) => {
        if (error) subsegment?.addError(error as Error);
        subsegment?.close();
      };
    },
  };
}

if (tracingActive) installStageTracer(loadTracer());
