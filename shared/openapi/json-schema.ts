import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';

export type JsonSchema = { [key: string]: unknown };

/** The named schemas of the document, `components.schemas`, filled as operations are described. */
export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * Converts a zod schema and registers it under `name`; answers a `$ref` to it. Requests are
   * described as clients write them (`io: 'input'`: defaults and optional fields as such),
   * answers as the service sends them.
   */
  add(name: string, schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    return this.put(name, this.convert(name, schema, io));
  }

  /**
   * Converts a zod schema for use in place (a request body's own schema); only the schemas it
   * refers to are registered, under `name` followed by theirs.
   */
  convert(name: string, schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
    }) as JsonSchema;
    const { $schema: _dialect, $defs, ...root } = converted;
    // $defs (zod schemas with a meta id, or recursive ones) become components of their own: inside
    // an OpenAPI document `#/$defs/...` would resolve against the document, not the schema.
    const renames = new Map<string, string>([['#', `#/components/schemas/${name}`]]);
    for (const defName of Object.keys(($defs as Record<string, JsonSchema> | undefined) ?? {})) {
      renames.set(`#/$defs/${defName}`, `#/components/schemas/${name}${defName}`);
    }
    for (const [defName, def] of Object.entries(($defs as Record<string, JsonSchema> | undefined) ?? {})) {
      this.put(`${name}${defName}`, rewriteRefs(def, renames, io) as JsonSchema);
    }
    return rewriteRefs(root, renames, io) as JsonSchema;
  }

  /** Registers a ready JSON schema. */
  put(name: string, schema: JsonSchema): JsonSchema {
    const existing = this.schemas[name];
    if (existing && !isDeepStrictEqual(existing, schema)) {
      throw new Error(`Two different schemas are both named ${name}.`);
    }
    this.schemas[name] = schema;
    return ref(name);
  }
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * Rewrites `$ref`s to their component names. Answers drop `additionalProperties: false`: the service
 * may add fields to an answer later, and clients should not break when it does.
 */
function rewriteRefs(value: unknown, renames: Map<string, string>, io: 'input' | 'output'): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, renames, io));
  if (value === null || typeof value !== 'object') return value;
  const result: JsonSchema = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string') result[key] = renames.get(inner) ?? inner;
    else if (key === 'additionalProperties' && inner === false && io === 'output') continue;
    else result[key] = rewriteRefs(inner, renames, io);
  }
  return result;
}

/** The names of the top-level properties of an object schema (an `allOf` of objects included). */
export function propertyNames(schema: JsonSchema): string[] {
  const own = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const parts = (schema.allOf as JsonSchema[] | undefined) ?? [];
  return [...own, ...parts.flatMap(propertyNames)];
}
