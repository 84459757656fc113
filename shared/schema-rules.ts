/**
 * JSON Schema words for the rules between fields that a body's zod schema checks in code (refine,
 * superRefine, or the work function before any work). zod cannot write a refinement into JSON
 * Schema, so each body states its rules with these in `.meta(...)`, and openapi.yaml carries them:
 * a client or a form built from the document then sends only what the service accepts.
 */
export type SchemaRule = Record<string, unknown>;

/** A field that must not be given (any value it had would have to match `false`). */
export const without = (field: string): SchemaRule => ({ properties: { [field]: false } });

/** Exactly one of the two fields is given. */
export const exactlyOneOf = (first: string, second: string): SchemaRule => ({
  oneOf: [{ required: [first] }, { required: [second] }],
});

/**
 * At least one of the two fields is given. Written as a oneOf (the first, or the second without
 * the first), which code generators read as well as anyOf and type the body no looser for it.
 */
export const atLeastOneOf = (first: string, second: string): SchemaRule => ({
  oneOf: [{ required: [first] }, { required: [second], ...without(first) }],
});

/** A field's value given as one of `values` (a single value or a list). */
const valueIs = (values: unknown): SchemaRule =>
  Array.isArray(values) ? { enum: values } : { const: values };

/** The body whose fields all hold these values (each given). */
export const fieldsAre = (values: Record<string, unknown>): SchemaRule => ({
  required: Object.keys(values),
  properties: Object.fromEntries(Object.entries(values).map(([field, value]) => [field, valueIs(value)])),
});

/** Refuses a body whose fields all hold these values. */
export const never = (values: Record<string, unknown>): SchemaRule => ({ not: fieldsAre(values) });

/** When the fields hold these values (each given), the body must also match `then`. */
export const when = (values: Record<string, unknown>, then: SchemaRule): SchemaRule => ({
  if: fieldsAre(values),
  then,
});

/** When the field holds `value` or is absent (`value` is its default), the body must also match `then`. */
export const whenOrDefault = (field: string, value: unknown, then: SchemaRule): SchemaRule => ({
  if: { properties: { [field]: valueIs(value) } },
  then,
});

/** Several rules of one body, every one to hold (rules that are lists themselves are flattened). */
export const allRules = (...rules: SchemaRule[]): SchemaRule => ({
  allOf: rules.flatMap((rule) =>
    Object.keys(rule).length === 1 && Array.isArray(rule.allOf) ? (rule.allOf as SchemaRule[]) : [rule],
  ),
});
