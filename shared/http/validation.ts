import type * as z from 'zod';
import { ApiError } from '#shared/errors.ts';

const pathOf = (path: readonly PropertyKey[]) => path.map(String).join('.');

/** What the body holds at `path`, or undefined when any step of it is missing. */
function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let value = body;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** zod's own wording for a value outside an enum; a schema's own message is kept as it is. */
const defaultEnumMessage = /^Invalid option: expected one of /;

/** The one message of a field: "required" when it is missing, the allowed values in plain words. */
function issueMessage(issue: z.core.$ZodIssue, body: unknown): string {
  const given = valueAt(body, issue.path);
  const choices =
    issue.code === 'invalid_value' && defaultEnumMessage.test(issue.message)
      ? issue.values.map(String).join(', ')
      : undefined;
  if (
    given === undefined &&
    issue.path.length > 0 &&
    (choices !== undefined || issue.code === 'invalid_type')
  ) {
    return choices === undefined ? 'required' : `required: one of ${choices}`;
  }
  return choices === undefined ? issue.message : `must be one of ${choices}`;
}

/**
 * zod checks a number's integer range (±2^53) beside the schema's own bounds, so `1e300` breaks
 * both; the schema's bound is the one worth reading.
 */
const isSafeIntegerBound = (issue: z.core.$ZodIssue) =>
  (issue.code === 'too_big' || issue.code === 'too_small') &&
  Math.abs(
    Number(
      (issue as { maximum?: unknown; minimum?: unknown }).maximum ?? (issue as { minimum?: unknown }).minimum,
    ),
  ) === Number.MAX_SAFE_INTEGER;

/** One line per offending field, each named by its path, e.g. `sources.2: Invalid URL`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], body?: unknown): string {
  const kept = issues.filter(
    (issue) =>
      !isSafeIntegerBound(issue) ||
      !issues.some((other) => other !== issue && pathOf(other.path) === pathOf(issue.path)),
  );
  const lines = kept.flatMap((issue) => {
    const path = pathOf(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${path ? `${path}.` : ''}${key}: unknown field`);
    }
    return [`${path || '(body)'}: ${issueMessage(issue, body)}`];
  });
  return lines.join('; ');
}

/**
 * Enumerated values (formats, modes, fits) are read in any letter case, as the format aliases are:
 * a value refused only for its case is put in the case the schema names, and the body checked again.
 */
function withEnumCaseFixed(body: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  let fixed: unknown;
  for (const issue of issues) {
    if (issue.code !== 'invalid_value' || issue.path.length === 0) continue;
    const given = valueAt(body, issue.path);
    if (typeof given !== 'string') continue;
    const match = issue.values.find(
      (value) => typeof value === 'string' && value.toLowerCase() === given.toLowerCase(),
    );
    if (match === undefined) continue;
    fixed ??= structuredClone(body);
    const parent = valueAt(fixed, issue.path.slice(0, -1)) as Record<PropertyKey, unknown>;
    parent[issue.path.at(-1)!] = match;
  }
  return fixed;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  let result = schema.safeParse(value);
  if (!result.success) {
    const fixed = withEnumCaseFixed(value, result.error.issues);
    if (fixed !== undefined) result = schema.safeParse(fixed);
  }
  if (!result.success) throw new ApiError('validation_failed', describeIssues(result.error.issues, value));
  return result.data;
}
