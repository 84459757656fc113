import { type DataFormat, maxNestingDepth, maxResultBytes } from '#shared/data/limits.ts';
import { ApiError } from '#shared/errors.ts';

/** Where a value sits, kept as a chain so that only an error ever builds the path. */
interface Place {
  parent: Place | undefined;
  key: string;
}

const pathOf = (place: Place | undefined): string => {
  const keys: string[] = [];
  for (let at = place; at; at = at.parent) keys.push(at.key);
  if (keys.length === 0) return '(the top)';
  const path = `/${keys.reverse().join('/')}`;
  return path.length > 120 ? `${path.slice(0, 120)}…` : path;
};

/**
 * Readies parsed data for writing as `format`, without recursion: refuses data nested deeper than
 * the bound, values the format cannot hold (NaN and infinities in JSON, null in TOML), and data
 * whose written form would pass the answer's size (estimated from depth, indentation and content,
 * stopping as soon as it is past). TOML dates become their text unless TOML is written again.
 */
export function readyToWrite(data: unknown, format: DataFormat, indent: number): void {
  const stack: [unknown, number, Place | undefined][] = [[data, 0, undefined]];
  let estimate = 0;
  while (stack.length > 0) {
    const [value, depth, place] = stack.pop()!;
    if (depth > maxNestingDepth) {
      throw new ApiError(
        'invalid_input',
        `The data nests deeper than ${maxNestingDepth} levels (at ${pathOf(place)}).`,
      );
    }
    estimate +=
      depth * indent + (place?.key.length ?? 0) + 4 + (typeof value === 'string' ? value.length : 8);
    if (estimate > maxResultBytes) {
      throw new ApiError(
        'invalid_input',
        `The result would be larger than the ${maxResultBytes / 1024 / 1024} MiB an answer may hold; a smaller indent may fit.`,
      );
    }
    if (value === null && format === 'toml') {
      throw new ApiError('invalid_input', `TOML has no null: the data holds one at ${pathOf(place)}.`);
    }
    if (typeof value === 'number' && !Number.isFinite(value) && format === 'json') {
      throw new ApiError(
        'invalid_input',
        `JSON has no NaN or infinity: the data holds ${value} at ${pathOf(place)}.`,
      );
    }
    if (value === null || typeof value !== 'object') continue;
    if (value instanceof Date) continue;
    const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
    for (const [key, child] of entries) {
      if (child instanceof Date && format !== 'toml') {
        (value as Record<string, unknown>)[key] = child.toISOString();
      }
      stack.push([child, depth + 1, { parent: place, key: String(key) }]);
    }
  }
}
