import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { refusalXml } from './s3-signature.ts';

/** The part of s3rver's file store that conditional writes read. */
export interface ObjectMetadataStore {
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag?: string }>;
}

type Serve = (request: IncomingMessage, response: ServerResponse) => void;

/** `/bucket/key…` of a path-style request; undefined for a bucket or the service itself. */
function objectOf(request: IncomingMessage): { bucket: string; key: string } | undefined {
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  const match = /^\/([^/]+)\/(.+)$/.exec(path);
  if (!match) return undefined;
  try {
    return { bucket: decodeURIComponent(match[1]!), key: decodeURIComponent(match[2]!) };
  } catch {
    return undefined;
  }
}

/**
 * S3's conditional writes, which s3rver does not know: a PUT with `If-None-Match: *` creates the
 * object only if it does not exist, one with `If-Match: <etag>` replaces it only if it is still that
 * version; otherwise 412 PreconditionFailed (If-Match on a missing object: 404 NoSuchKey, as S3
 * answers). Conditional writes to one key take turns, each holding its turn until its answer is
 * sent, so two writers racing for the same key cannot both succeed.
 */
export function conditionalWrites(store: ObjectMetadataStore, serve: Serve) {
  const tails = new Map<string, Promise<void>>();

  const refuse = (response: ServerResponse, refusal: { status: number; code: string; message: string }) => {
    const body = refusalXml(refusal, randomUUID());
    response.writeHead(refusal.status, {
      'Content-Type': 'application/xml',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    response.end(body);
  };

  const decide = async (request: IncomingMessage, response: ServerResponse, bucket: string, key: string) => {
    const noneMatch = request.headers['if-none-match'];
    const match = request.headers['if-match'];
    const exists = await store.existsObject(bucket, key);
    if (noneMatch !== undefined) {
      if (noneMatch.trim() !== '*') {
        refuse(response, {
          status: 501,
          code: 'NotImplemented',
          message: 'If-None-Match on PUT takes only *.',
        });
        return;
      }
      if (exists) {
        refuse(response, {
          status: 412,
          code: 'PreconditionFailed',
          message: 'At least one of the pre-conditions you specified did not hold',
        });
        return;
      }
    }
    if (match !== undefined) {
      if (!exists) {
        refuse(response, { status: 404, code: 'NoSuchKey', message: 'The specified key does not exist.' });
        return;
      }
      const { etag } = await store.getMetadata(bucket, key);
      if (match.trim() !== '*' && match.trim() !== etag) {
        refuse(response, {
          status: 412,
          code: 'PreconditionFailed',
          message: 'At least one of the pre-conditions you specified did not hold',
        });
        return;
      }
    }
    await new Promise<void>((resolve) => {
      response.once('close', resolve);
      serve(request, response);
    });
  };

  return (request: IncomingMessage, response: ServerResponse): void => {
    const object = objectOf(request);
    const conditional =
      request.headers['if-none-match'] !== undefined || request.headers['if-match'] !== undefined;
    if (request.method !== 'PUT' || !conditional || !object) {
      serve(request, response);
      return;
    }
    const id = `${object.bucket}/${object.key}`;
    const turn = (tails.get(id) ?? Promise.resolve()).then(() =>
      decide(request, response, object.bucket, object.key).catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      }),
    );
    tails.set(id, turn);
    void turn.then(() => {
      if (tails.get(id) === turn) tails.delete(id);
    });
  };
}
