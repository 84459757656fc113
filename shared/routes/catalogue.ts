import * as z from 'zod';
import { type FormatCategoryName, formatCategoryNames, type RouteSpec } from '#shared/routes/types.ts';
import { canonicalFormat } from '#shared/source/formats.ts';

/** One route in `GET /formats`: what it reads and writes, and the values of its enumerated fields. */
export interface FormatOperation {
  path: string;
  inputs: readonly string[];
  outputs: readonly string[];
  options?: Readonly<Record<string, readonly (string | number)[]>>;
}

export interface FormatCategory {
  /** Every input of the category's operations. */
  inputs: readonly string[];
  /** Every output of the category's operations. */
  outputs: readonly string[];
  operations: readonly FormatOperation[];
}

type JsonSchemaNode = { enum?: unknown[]; const?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };

/** Every value an enumerated JSON schema accepts: enum, const, and their anyOf/oneOf unions. */
function acceptedValues(schema: unknown): (string | number)[] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as JsonSchemaNode;
  const own = [...(node.enum ?? []), ...(node.const !== undefined ? [node.const] : [])].filter(
    (value): value is string | number => typeof value === 'string' || typeof value === 'number',
  );
  return [...own, ...[...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap(acceptedValues)];
}

const unique = <T>(values: readonly T[]) => [...new Set(values)];

/** The enumerated fields of a request schema, each with its values in canonical spelling. */
function enumeratedOptions(body: z.ZodType): FormatOperation['options'] {
  const schema = z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, unknown>;
  };
  const options = Object.entries(schema.properties ?? {})
    .map(([field, node]) => {
      const values = acceptedValues(node).map((value) =>
        typeof value === 'string' ? canonicalFormat(value) : value,
      );
      return [field, unique(values)] as const;
    })
    .filter(([, values]) => values.length > 0);
  return options.length > 0 ? Object.fromEntries(options) : undefined;
}

function operationOf(route: RouteSpec): FormatOperation {
  const { inputs, outputs } = route.formats!;
  const options = route.body ? enumeratedOptions(route.body) : undefined;
  return { path: route.path, inputs, outputs, ...(options ? { options } : {}) };
}

/**
 * What converts to what, per category, read from the route table: each row's formats, and the
 * enumerated fields of its request schema as its options.
 */
export function formatCatalogue(routes: readonly RouteSpec[]): Record<FormatCategoryName, FormatCategory> {
  const listed = routes.filter((route) => route.formats !== undefined);
  const category = (name: FormatCategoryName): FormatCategory => {
    const operations = listed.filter((route) => route.formats!.categories.includes(name)).map(operationOf);
    return {
      inputs: unique(operations.flatMap((operation) => operation.inputs)),
      outputs: unique(operations.flatMap((operation) => operation.outputs)),
      operations,
    };
  };
  return Object.fromEntries(formatCategoryNames.map((name) => [name, category(name)])) as Record<
    FormatCategoryName,
    FormatCategory
  >;
}
