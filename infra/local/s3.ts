import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { makeObjectWritesAtomic } from './s3-atomic-writes.ts';

export interface EmbeddedS3 {
  endpoint: string;
  /** s3rver's fixed development credentials. */
  accessKeyId: string;
  secretAccessKey: string;
  close(): Promise<void>;
}

/** An S3-protocol server on loopback for the job store, with its data in a temporary folder. */
export async function startEmbeddedS3(buckets: readonly string[]): Promise<EmbeddedS3> {
  const directory = await mkdtemp(join(tmpdir(), 'fca-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  makeObjectWritesAtomic(server.store);
  const { port } = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
