import { parse, YAMLError } from 'yaml';
import { maxNestingDepth, maxYamlAliases } from '#shared/data/limits.ts';
import { lineColumn, notValid } from '#shared/data/position.ts';

/**
 * YAML 1.2 (core schema) as plain data: tags the core schema does not know are read as the plain
 * value they tag, never as objects of a type, and aliases are bounded so that a bomb is refused
 * before it expands.
 */
export function readYaml(text: string): unknown {
  refuseDeepNesting(text);
  try {
    return parse(text, {
      schema: 'core',
      maxAliasCount: maxYamlAliases,
      uniqueKeys: true,
      merge: false,
      logLevel: 'error',
    });
  } catch (error) {
    if (error instanceof YAMLError) {
      const where = error.linePos?.[0];
      const reason = error.message.split(/ at line \d+/)[0] ?? error.message;
      throw notValid('YAML', where ? { line: where.line, column: where.col } : undefined, reason, error);
    }
    if (error instanceof ReferenceError) {
      throw notValid(
        'YAML',
        undefined,
        `its aliases would expand past ${maxYamlAliases} resolved aliases (an alias bomb?)`,
        error,
      );
    }
    if (error instanceof RangeError) throw notValid('YAML', undefined, 'it nests too deeply', error);
    throw error;
  }
}

/**
 * The YAML library composes recursively and, past some hundreds of levels, spends seconds before it
 * gives up. So a cheap upper bound of the nesting is checked first: open brackets (flow
 * collections) plus, on each line, its indentation and its compact `- ` / `? ` indicators (block
 * collections). It can only overestimate, so a document it lets through nests no deeper.
 */
function refuseDeepNesting(text: string): void {
  const bound = maxNestingDepth * 2;
  let open = 0;
  let indent = 0;
  let inIndent = true;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === 0x0a) {
      indent = 0;
      inIndent = true;
      continue;
    }
    if (inIndent) {
      if (char === 0x20) indent += 1;
      else if ((char === 0x2d || char === 0x3f) && text.charCodeAt(index + 1) === 0x20) indent += 2;
      else inIndent = false;
    }
    if (char === 0x5b || char === 0x7b) open += 1;
    else if ((char === 0x5d || char === 0x7d) && open > 0) open -= 1;
    if (open + indent > bound) {
      throw notValid(
        'YAML',
        lineColumn(text, index),
        `it nests too deeply (more than ${bound} open brackets and indentation columns)`,
      );
    }
  }
}
