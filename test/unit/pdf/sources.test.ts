import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBatchSize, downloadBatch } from '#shared/pdf/sources.ts';
import { tiers } from '#shared/tiers.ts';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from '../../support/fixture-server.ts';
import { failure } from '../../support/http-error.ts';
import { textPdf } from './fixtures.ts';

const server = new FixtureServer();
let pdf: Buffer;
let countedBytes = 0;

beforeAll(async () => {
  await server.start();
  pdf = Buffer.from(await textPdf({ pages: 1 }));
  server.serve('/a.pdf', pdf);
  server.serve('/b.pdf', pdf);
  // Two files that each fit the free tier's 20 MB, but not together.
  server.serve('/half.pdf', Buffer.concat([pdf, Buffer.alloc(10_500_000)]));
  // The same 10.5 MB, written a slice at a time as the client takes it, counting what was sent.
  server.route('/counted.pdf', async (_request, response) => {
    const body = Buffer.concat([pdf, Buffer.alloc(10_500_000)]);
    response.writeHead(200, { 'Content-Type': 'application/pdf' });
    for (let at = 0; at < body.length && !response.destroyed; at += 256_000) {
      const slice = body.subarray(at, at + 256_000);
      countedBytes += slice.length;
      if (!response.write(slice))
        await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
    }
    response.end();
  });
  server.route('/slow.pdf', (_request, response) => {
    response.writeHead(200, { 'Content-Length': String(pdf.length) });
    response.write(pdf.subarray(0, 10));
    setTimeout(() => response.end(pdf.subarray(10)), 300);
  });
});
afterAll(() => server.stop());

describe('batch sources', () => {
  it('downloads every source in order', async () => {
    const workspace = new Workspace();
    const sources = await downloadBatch([server.url('/a.pdf'), server.url('/b.pdf')], ['pdf'], {
      workspace,
      caller: { tier: 'free' },
      limits: tiers.free,
    });
    expect(sources.map((source) => [source.baseName, source.sizeBytes, source.format])).toEqual([
      ['a', pdf.length, 'pdf'],
      ['b', pdf.length, 'pdf'],
    ]);
    await workspace.dispose();
  });

  it('refuses a batch whose sources together exceed the tier size limit, naming the tier that lifts it', async () => {
    const workspace = new Workspace();
    const urls = [server.url('/half.pdf'), server.url('/half.pdf')];
    const error = await failure(
      downloadBatch(urls, ['pdf'], { workspace, caller: { tier: 'free' }, limits: tiers.free }),
    );
    expect(error.code).toBe('source_too_large');
    expect(error.message).toMatch(
      /^sources: together the files are more than the 20 MB one request of the free tier may bring\. The pro tier accepts up to 200 MB\.$/,
    );
    await workspace.dispose();
  });

  it('stops the whole batch as soon as its bytes pass the tier size limit, not after every download', async () => {
    const workspace = new Workspace();
    const urls = Array.from({ length: 8 }, () => server.url('/counted.pdf'));
    const error = await failure(
      downloadBatch(urls, ['pdf'], {
        workspace,
        caller: { tier: 'free' },
        limits: { ...tiers.free, maxBatchFiles: 8 },
      }),
    );
    expect(error.code).toBe('source_too_large');
    // Eight files of 10.5 MB are 84 MB; the batch stops past 20 MB by what four sockets buffer.
    expect(countedBytes).toBeLessThan(45_000_000);
    expect(await readdir(await workspace.dir())).toEqual([]);
    await workspace.dispose();
  });

  it('names the failing source and waits for the others before it answers', async () => {
    const workspace = new Workspace();
    const urls = [server.url('/slow.pdf'), server.url('/missing.pdf'), server.url('/a.pdf')];
    const error = await failure(
      downloadBatch(urls, ['pdf'], { workspace, caller: { tier: 'free' }, limits: tiers.free }),
    );
    expect(error.code).toBe('source_bad_status');
    expect(error.message).toMatch(/^sources\.1: /);
    // Nothing is still writing: the files that are left stay as they are until the workspace goes.
    const dir = await workspace.dir();
    const before = await readdir(dir);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await readdir(dir)).toEqual(before);
    await workspace.dispose();
  });

  it('names the tier that takes a batch, or none', () => {
    expect(() => checkBatchSize(50, 'pro', tiers.pro)).not.toThrow();
    expect(() => checkBatchSize(51, 'pro', tiers.pro)).toThrow(
      'sources: 51 files are more than the 50 per request of the pro tier. The enterprise tier takes up to 200.',
    );
    expect(() => checkBatchSize(201, 'enterprise', tiers.enterprise)).toThrow(
      'No tier takes that many in one request.',
    );
  });
});
