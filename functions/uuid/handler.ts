import { uuidBody } from '#shared/crypto/schemas.ts';
import { generateUuids } from '#shared/crypto/uuid.ts';
import { createJsonHandler } from '#shared/http/stack.ts';

export const handler = createJsonHandler('uuid', uuidBody, ({ body }) => ({
  uuids: generateUuids(body.version, body.count),
}));
