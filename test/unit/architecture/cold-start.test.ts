import { describe, expect, it } from 'vitest';
import { handlerEntries, importGraph, loadedAtInit } from '../../support/import-graph.ts';

/**
 * What a function evaluates at init is what its handler reaches through static imports; a dynamic
 * `import()` is evaluated on the first request that takes that path. File functions start without
 * the async-job modules and the AWS SDK clients behind them (S3, Lambda, Secrets Manager): most
 * requests carry no callbackUrl, and those clients cost a large share of a cold start.
 */

const handlers = handlerEntries;

describe('cold start of the file functions', () => {
  it('loads no job module and no AWS SDK client at init', async () => {
    const graph = await importGraph(handlers);
    const fileFunctions = handlers.filter((entry) =>
      loadedAtInit(graph, entry).has('shared/jobs/file-handler.ts'),
    );
    expect(fileFunctions.length).toBeGreaterThan(10);
    const eager = fileFunctions.flatMap((entry) =>
      [...loadedAtInit(graph, entry)]
        .filter(
          (path) =>
            path.startsWith('@aws-sdk/') || /^shared\/jobs\/(accept|run|store|dispatch)\.ts$/.test(path),
        )
        .map((path) => `${entry} → ${path}`),
    );
    expect(eager).toEqual([]);
  });

  it('still reaches the job modules (and exports to outputUrl), lazily, from every file function', async () => {
    const graph = await importGraph(['shared/jobs/file-handler.ts']);
    const lazy = graph.inputs['shared/jobs/file-handler.ts']?.imports
      .filter((target) => target.kind === 'dynamic-import')
      .map((target) => target.path)
      .sort();
    expect(lazy).toEqual(['shared/jobs/accept.ts', 'shared/jobs/export.ts', 'shared/jobs/run.ts']);
  });

  it("leaves middy's streaming mode, and the web streams it loads, to the file functions", async () => {
    const graph = await importGraph(handlers);
    const streaming = (entry: string) => loadedAtInit(graph, entry).has('@middy/core/StreamifyResponse');
    const isFileFunction = (entry: string) => loadedAtInit(graph, entry).has('shared/jobs/file-handler.ts');
    const jsonFunctions = handlers.filter((entry) => !isFileFunction(entry));
    expect(jsonFunctions).toContain('functions/hash/handler.ts');
    expect(jsonFunctions.filter(streaming)).toEqual([]);
    expect(handlers.filter(isFileFunction).every(streaming)).toBe(true);
  });

  it('loads pdfium on first use only, so the PDF functions that need it just for a broken file start without it', async () => {
    const graph = await importGraph(handlers);
    const eager = handlers.filter((entry) => loadedAtInit(graph, entry).has('@hyzyla/pdfium'));
    expect(eager).toEqual([]);
    const lazy = graph.inputs['shared/pdf/pdfium.ts']?.imports.find(
      (target) => target.path === '@hyzyla/pdfium',
    );
    expect(lazy?.kind).toBe('dynamic-import');
  });
});
