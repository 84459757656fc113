import { generateUuids } from '#shared/crypto/uuid.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { uuidRoute } from '#shared/routes/crypto.ts';

export const handler = createJsonHandler(uuidRoute, ({ body }) => ({
  uuids: generateUuids(body.version, body.count),
}));
