import { stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createJsonHandler } from '#shared/http/stack.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { apiEvent, call } from '../../support/lambda.ts';
import { testRoute } from '../../support/route.ts';

const body = z.strictObject({ text: z.string(), name: z.string().default('out') });

describe('file routes (Lambda response streaming through middy)', () => {
  // This request's own workspace: other tests and processes share the temp folder at the same time.
  let workspaceFolder = '';
  const handler = createFileHandler(testRoute('echo-file', body, 'file'), async ({ body, workspace }) => {
    const path = await workspace.file('result.txt');
    workspaceFolder = dirname(path);
    await writeFile(path, body.text.repeat(10_000));
    return {
      path,
      contentType: 'text/plain',
      fileName: `${body.name}.txt`,
      headers: { 'X-Output-Size': '1' },
    };
  });

  it('streams the file with type, length and disposition, then removes the workspace', async () => {
    const answer = await call(handler, apiEvent({ text: 'abc', name: 'my report' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.body.toString()).toBe('abc'.repeat(10_000));
    expect(answer.headers['Content-Type']).toBe('text/plain');
    expect(answer.headers['Content-Length']).toBe('30000');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="my_report.txt"');
    expect(answer.headers['X-Request-Id']).toBeDefined();
    await expect(stat(workspaceFolder)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers errors as JSON through the same stream', async () => {
    const answer = await call(handler, apiEvent({ text: 1 }));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: 'validation_failed' });
    expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
  });
});

describe('unexpected failures', () => {
  const handler = createJsonHandler(testRoute('broken', z.strictObject({})), () => {
    throw new Error('secret internal detail at /var/task/index.js');
  });

  it('become 500 internal_error carrying the request id and nothing internal', async () => {
    const event = apiEvent({});
    const answer = await call(handler, event);
    expect(answer.statusCode).toBe(500);
    const error = answer.json() as { error: string; message: string };
    expect(error.error).toBe('internal_error');
    expect(error.message).toContain(event.requestContext.requestId);
    expect(answer.body.toString()).not.toMatch(/secret|\/var\/task|at /);
  });

  it('keeps the body an object: arrays and scalars fail validation', async () => {
    const handler = createJsonHandler(
      testRoute('strict', z.strictObject({ a: z.string().optional() })),
      () => ({
        ok: true,
      }),
    );
    expect((await call(handler, apiEvent('[1,2]'))).json()).toMatchObject({ error: 'validation_failed' });
    expect((await call(handler, apiEvent(''))).json()).toEqual({ ok: true });
  });
});
