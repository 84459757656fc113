import { randomUUID } from 'node:crypto';
import { rename } from 'node:fs/promises';

/** The part of s3rver's file store that is wrapped here. */
export interface ObjectStore {
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
  putObject(object: { bucket: string; key: string }): Promise<unknown>;
  getResourcePath(bucket: string, key: string, resource: string): string;
}

/** The files s3rver keeps for one object; the object itself last, as readers stat it first. */
const objectFiles = ['object.md5', 'metadata.json', 'object'];

/**
 * S3 replaces an object atomically: a reader sees the old object or the new one. s3rver writes the
 * file in place, so a job poll racing the job's own update could read half a record. Here a write
 * goes to a staging key and is renamed into place, and the rename and a reader's look-up (metadata,
 * then opening the file) take turns at each key; an opened file keeps the content it was opened with.
 */
export function makeObjectWritesAtomic(store: ObjectStore): void {
  const tails = new Map<string, Promise<void>>();

  /** Runs `work` after every earlier turn at the same key has finished. */
  const inTurn = async <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const previous = tails.get(id) ?? Promise.resolve();
    const turn = previous.then(work);
    const tail = turn.then(
      () => {},
      () => {},
    );
    tails.set(id, tail);
    void tail.then(() => {
      if (tails.get(id) === tail) tails.delete(id);
    });
    return turn;
  };

  const getObject = store.getObject.bind(store);
  const putObject = store.putObject.bind(store);

  store.getObject = (bucket, key, options) =>
    inTurn(`${bucket}/${key}`, () => getObject(bucket, key, options));

  store.putObject = async (object) => {
    const staging = `${object.key}.${randomUUID()}.staging`;
    const result = await putObject({ ...object, key: staging });
    await inTurn(`${object.bucket}/${object.key}`, async () => {
      for (const resource of objectFiles) {
        await rename(
          store.getResourcePath(object.bucket, staging, resource),
          store.getResourcePath(object.bucket, object.key, resource),
        );
      }
    });
    return result;
  };
}
