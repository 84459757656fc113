import { runInNewContext } from 'node:vm';
import { Ajv, type AnySchema, type ErrorObject, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { RE2JS } from 're2js';
import { maxNestingDepth, maxValidationErrors, validationTimeoutMs } from '#shared/data/limits.ts';
import { ApiError } from '#shared/errors.ts';

export interface JsonValidation {
  valid: boolean;
  errors: { path: string; message: string }[];
  errorCount: number;
}

/**
 * Patterns run on RE2 (in linear time, whatever the pattern), never on a backtracking engine. RE2
 * has no lookaround and no backreferences; a schema that uses them is refused as it compiles.
 * Ajv keeps one compiled pattern per `toString()`, so each must print as its own pattern.
 */
const linearRegExp = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/` };
  },
  { code: 'RE2JS.compile' },
);

const dialects = {
  'https://json-schema.org/draft/2020-12/schema': Ajv2020,
  'https://json-schema.org/draft/2019-09/schema': Ajv2019,
  'http://json-schema.org/draft-07/schema': Ajv,
} as const;

type Validator = Ajv | Ajv2019 | Ajv2020;
const validators = new Map<string, Validator>();

/**
 * One validator per dialect and container: building one (meta-schemas, formats) costs far more
 * than a validation. No schema a caller sent stays in it: each is removed after use, with its `$id`.
 */
function validatorFor(schema: AnySchema): Validator {
  const declared =
    typeof schema === 'object' && typeof schema.$schema === 'string' ? schema.$schema : undefined;
  const uri =
    declared === undefined ? 'https://json-schema.org/draft/2020-12/schema' : declared.replace(/#$/, '');
  const dialect = dialects[uri as keyof typeof dialects];
  if (!dialect) {
    throw new ApiError(
      'invalid_input',
      'schema: $schema must be JSON Schema 2020-12, 2019-09 or draft-07 (or be left out for 2020-12).',
    );
  }
  // No loadSchema: a $ref that is not inside the schema fails to compile instead of being fetched.
  const known = validators.get(uri);
  if (known) return known;
  const options: Options = { allErrors: true, strict: false, code: { regExp: linearRegExp } };
  const ajv = new dialect(options);
  formats.default(ajv);
  validators.set(uri, ajv);
  return ajv;
}

/**
 * Validates `data` against `schema`. Compiling and validating run under a time bound: a schema can make work
 * exponential (references that fan out) or quadratic (uniqueItems over a long array).
 */
export function validateJson(data: unknown, schema: AnySchema): JsonValidation {
  checkDepth(data, 'data');
  checkDepth(schema, 'schema');
  const ajv = validatorFor(schema);
  try {
    return validateWith(ajv, data, schema);
  } finally {
    // A boolean schema is compiled but never kept.
    if (typeof schema === 'object') ajv.removeSchema(schema);
  }
}

function validateWith(ajv: Validator, data: unknown, schema: AnySchema): JsonValidation {
  let validate: ReturnType<Validator['compile']>;
  try {
    validate = withinTime(() => ajv.compile(schema));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('invalid_input', `schema is not a valid JSON Schema: ${reasonOf(error)}`, {
      cause: error,
    });
  }
  // No $async schema: the answer is a boolean, never a promise.
  const valid = withinTime(() => validate(data)) === true;
  const errors = validate.errors ?? [];
  return {
    valid,
    errors: errors
      .slice(0, maxValidationErrors)
      .map((error) => ({ path: error.instancePath, message: messageOf(error) })),
    errorCount: errors.length,
  };
}

function withinTime<T>(work: () => T): T {
  try {
    return runInNewContext('work()', { work }, { timeout: validationTimeoutMs }) as T;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new ApiError(
        'invalid_input',
        `Validation took longer than ${validationTimeoutMs / 1000} s: the schema makes too much work of this data.`,
        { cause: error },
      );
    }
    if (error instanceof RangeError) {
      throw new ApiError('invalid_input', 'schema refers to itself without descending into the data.', {
        cause: error,
      });
    }
    throw error;
  }
}

function messageOf(error: ErrorObject): string {
  const extra = error.params as { additionalProperty?: string; unevaluatedProperty?: string };
  const property = extra.additionalProperty ?? extra.unevaluatedProperty;
  return property === undefined ? (error.message ?? error.keyword) : `${error.message}: "${property}"`;
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/RE2JS|regexp/i.test(message) || (error as Error)?.constructor?.name?.startsWith('RE2JS')) {
    return `a pattern cannot be run in linear time (lookaround and backreferences are not supported): ${message}`;
  }
  return message.split('\n')[0] ?? message;
}

/** Refuses JSON nested deeper than the bound, without recursion: the validator recurses. */
function checkDepth(value: unknown, field: string): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= maxNestingDepth) {
      throw new ApiError('validation_failed', `${field}: nests deeper than ${maxNestingDepth} levels.`);
    }
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
}
