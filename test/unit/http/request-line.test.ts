import { writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { emfDirectives } from '../../support/emf.ts';
import { FixtureServer } from '../../support/fixture-server.ts';
import { apiEvent, call } from '../../support/lambda.ts';
import { testRoute } from '../../support/route.ts';

/**
 * The one log line per request carries the request's metrics (embedded metric format) and its
 * stage times; a tracer, where installed, sees the download, engine and upload stages.
 */
const body = z.strictObject({ sourceUrl: z.string(), repeat: z.number().int().default(1) });
const fixtures = new FixtureServer();
const source = Buffer.alloc(5000, 7);
let sourceUrl: string;
let lines: Record<string, unknown>[];
let traced: string[];
let modules: Awaited<ReturnType<typeof loadModules>>;

/** The configuration is read when the modules load: load them again with lines switched on. */
async function loadModules() {
  vi.stubEnv('LOG_LEVEL', 'info');
  vi.resetModules();
  const stages = await import('#shared/stages.ts');
  stages.installStageTracer(
    Promise.resolve({
      async run<T>(name: string, work: () => Promise<T>) {
        traced.push(`${name} start`);
        try {
          return await work();
        } finally {
          traced.push(`${name} end`);
        }
      },
      open(name: string) {
        traced.push(`${name} start`);
        return () => traced.push(`${name} end`);
      },
    }),
  );
  const { createFileHandler } = await import('#shared/jobs/file-handler.ts');
  const { createJsonHandler } = await import('#shared/http/stack.ts');
  const { downloadSource } = await import('#shared/source/download.ts');
  const fileHandler = createFileHandler(
    testRoute('copy-source', body, 'file'),
    async ({ body, workspace, limits, caller }) => {
      const downloaded = await downloadSource(body.sourceUrl, {
        workspace,
        maxBytes: limits.maxSourceBytes,
        tier: caller.tier,
        accept: 'any',
      });
      const path = await workspace.file('copy.bin');
      await writeFile(path, Buffer.alloc(downloaded.sizeBytes * body.repeat, 1));
      return { path, contentType: 'application/octet-stream', fileName: 'copy.bin' };
    },
  );
  const jsonHandler = createJsonHandler(
    testRoute('size', body),
    async ({ body, workspace, limits, caller }) => {
      const { sizeBytes } = await downloadSource(body.sourceUrl, {
        workspace,
        maxBytes: limits.maxSourceBytes,
        tier: caller.tier,
        accept: 'any',
      });
      return { sizeBytes };
    },
  );
  return { fileHandler, jsonHandler };
}

beforeAll(async () => {
  await fixtures.start();
  sourceUrl = fixtures.serve('/source.bin', source);
  traced = [];
  modules = await loadModules();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await fixtures.stop();
});

function captureLines() {
  lines = [];
  traced.length = 0;
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    return true;
  });
}
afterEach(() => vi.restoreAllMocks());

const requestLines = () => lines.filter((line) => line.message === 'request');

describe('the request log line', () => {
  it('of a streamed file answer: sizes in and out, download, engine and upload times, and its metrics', async () => {
    captureLines();
    const event = apiEvent({ sourceUrl, repeat: 3 }, { tier: 'pro' });
    const bytesIn = Buffer.byteLength(event.body!);
    const answer = await call(modules.fileHandler, event);
    expect(answer.statusCode).toBe(200);
    expect(requestLines()).toHaveLength(1);
    const line = requestLines()[0]!;
    expect(line).toMatchObject({
      requestId: event.requestContext.requestId,
      route: 'copy-source',
      tier: 'pro',
      status: 200,
      bytesIn,
      bytesOut: 15_000,
      Requests: 1,
      Responses4xx: 0,
      Responses5xx: 0,
      BytesIn: bytesIn,
      BytesOut: 15_000,
    });
    for (const field of ['downloadMs', 'engineMs', 'uploadMs', 'EngineTime', 'Duration']) {
      expect(typeof line[field], field).toBe('number');
    }
    expect(line).not.toHaveProperty('errorCode');
    expect(emfDirectives(line).length).toBeGreaterThan(0);
    // The download runs inside the engine stage; the upload follows it and ends with the stream.
    expect(traced).toEqual([
      'engine start',
      'download start',
      'download end',
      'engine end',
      'upload start',
      'upload end',
    ]);
  });

  it('of a JSON answer that downloads: the engine time leaves the download out', async () => {
    captureLines();
    const answer = await call(modules.jsonHandler, apiEvent({ sourceUrl }));
    expect(answer.json()).toEqual({ sizeBytes: source.length });
    const line = requestLines()[0]!;
    expect(line).toMatchObject({ route: 'size', status: 200, tier: 'free', bytesOut: answer.body.length });
    expect(line.EngineTime).toBe(line.engineMs);
    expect(line).not.toHaveProperty('uploadMs');
    expect(traced).toEqual(['engine start', 'download start', 'download end', 'engine end']);
  });

  it('of an error: the status, the error code, and the 4xx counted by that code', async () => {
    captureLines();
    const answer = await call(modules.jsonHandler, apiEvent({ sourceUrl: 'ftp://example.org/x' }));
    expect(answer.statusCode).toBe(400);
    const code = (answer.json() as { error: string }).error;
    const line = requestLines()[0]!;
    expect(line).toMatchObject({ status: 400, errorCode: code, Responses4xx: 1, Responses5xx: 0 });
    const byCode = emfDirectives(line).find((d) => d.Dimensions.some((set) => set.includes('errorCode')));
    expect(byCode?.Metrics.map((m) => m.Name)).toEqual(['Requests']);
  });

  it('of a body that never reached the work: no engine time is made up', async () => {
    captureLines();
    const answer = await call(modules.jsonHandler, apiEvent('{"sourceUrl": 1}'));
    expect(answer.statusCode).toBe(400);
    const line = requestLines()[0]!;
    expect(line).toMatchObject({ errorCode: 'validation_failed', bytesIn: 16 });
    expect(line).not.toHaveProperty('EngineTime');
    expect(traced).toEqual([]);
  });
});
