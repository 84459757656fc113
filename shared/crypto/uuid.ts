import { randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

/** Version 4 (random) or 7 (Unix-time ordered, RFC 9562) UUIDs, lowercase. */
export function generateUuids(version: 4 | 7, count: number): string[] {
  const next = version === 4 ? () => randomUUID() : () => v7();
  return Array.from({ length: count }, next);
}
