import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { makeObjectWritesAtomic } from './s3-atomic-writes.ts';
import { conditionalWrites, type ObjectMetadataStore } from './s3-conditional-writes.ts';
import { checkS3Signature, refusalXml } from './s3-signature.ts';

export interface EmbeddedS3 {
  endpoint: string;
  /** The access key id s3rver knows its one account by. */
  accessKeyId: string;
  /** Generated at start unless given: only a client that holds it can sign a request. */
  secretAccessKey: string;
  close(): Promise<void>;
}

/**
 * An S3-protocol server on loopback for the job store, with its data in `directory` (kept when it
 * closes, so that jobs survive a restart) or else in a temporary folder removed when it closes. Every
 * request must carry a valid Signature Version 4 (header or presigned URL) made with the server's
 * credentials; s3rver itself does not check one, so the check runs before s3rver sees the request.
 * Conditional writes (If-None-Match, If-Match), which s3rver lacks, are decided before it too.
 */
export async function startEmbeddedS3(
  buckets: readonly string[],
  options: { secretAccessKey?: string | undefined; directory?: string | undefined } = {},
): Promise<EmbeddedS3> {
  const kept = options.directory !== undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'fca-s3-')));
  if (kept) await mkdir(directory, { recursive: true });
  const credentials = {
    accessKeyId: 'S3RVER',
    secretAccessKey: options.secretAccessKey ?? randomBytes(32).toString('hex'),
  };
  const s3rver = new S3rver({
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  makeObjectWritesAtomic(s3rver.store);
  await s3rver.configureBuckets();
  const serve = conditionalWrites(s3rver.store as unknown as ObjectMetadataStore, s3rver.callback());
  const server = createServer((request, response) => {
    checkS3Signature(request, credentials).then(
      (refusal) => {
        if (!refusal) return serve(request, response);
        const body = request.method === 'HEAD' ? '' : refusalXml(refusal, randomUUID());
        response.writeHead(refusal.status, {
          'Content-Type': 'application/xml',
          'Content-Length': Buffer.byteLength(body),
          Connection: 'close',
        });
        response.end(body);
      },
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    ...credentials,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!kept) await rm(directory, { recursive: true, force: true });
    },
  };
}
