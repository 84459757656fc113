import type * as z from 'zod';
import { ApiError } from '#shared/errors.ts';

const pathOf = (path: readonly PropertyKey[]) => path.map(String).join('.');

/** One line per offending field, each named by its path, e.g. `sources.2: Invalid URL`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.flatMap((issue) => {
    const path = pathOf(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${path ? `${path}.` : ''}${key}: unknown field`);
    }
    return [`${path || '(body)'}: ${issue.message}`];
  });
  return lines.join('; ');
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError('validation_failed', describeIssues(result.error.issues));
  return result.data;
}
