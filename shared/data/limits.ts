/** The options and bounds of the data routes, which their schemas, work functions and docs read. */

export const dataFormats = ['json', 'yaml', 'toml', 'csv', 'xml'] as const;
export type DataFormat = (typeof dataFormats)[number];

/**
 * How deep data may nest, in every format. Real documents stay far below it; the bound keeps the
 * parsers and writers (some of them recursive) clear of the stack, whatever a body nests.
 */
export const maxNestingDepth = 128;

/** YAML aliases resolved per document: an alias bomb stops here, before it expands. */
export const maxYamlAliases = 100;

/**
 * The most a converted or rendered answer may hold. Indentation grows with depth, and YAML aliases
 * repeat what they name, so a small body could otherwise be written as a huge one.
 */
export const maxResultBytes = 4 * 1024 * 1024;

export const diffGranularities = ['line', 'word', 'char'] as const;
export type DiffGranularity = (typeof diffGranularities)[number];
export const diffFormats = ['unified', 'json'] as const;

/**
 * A diff's search stops after this many milliseconds or edits; the answer then replaces the texts
 * whole (still a correct diff, not a minimal one). Two 1 MiB texts with nothing in common would
 * otherwise take minutes: Myers' algorithm is quadratic in the number of edits.
 */
export const diffTimeoutMs = 500;
export const diffMaxEdits = 20_000;

/** Validation errors listed per answer; `errorCount` tells how many there were in all. */
export const maxValidationErrors = 100;

/** Compiling a schema, and validating with it, each stop after this long. */
export const validationTimeoutMs = 1000;
