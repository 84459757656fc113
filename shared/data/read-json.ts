import { type ParseError, parse as parseTolerantly, printParseErrorCode } from 'jsonc-parser';
import { lineColumn, notValid } from '#shared/data/position.ts';

/**
 * JSON (RFC 8259) read by the engine's own parser; when it refuses, a tolerant parser that stops at
 * nothing finds where the first error is, which the engine's message does not always say.
 */
export function readJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw notValid('JSON', ...firstError(text), error);
  }
}

function firstError(text: string): [{ line: number; column: number } | undefined, string] {
  const errors: ParseError[] = [];
  try {
    parseTolerantly(text, errors, {
      disallowComments: true,
      allowTrailingComma: false,
      allowEmptyContent: false,
    });
  } catch {
    // The tolerant parser recurses; past its stack (thousands of levels) the place stays unknown.
    return [undefined, 'it does not parse'];
  }
  const first = errors[0];
  if (!first) return [undefined, 'it does not parse'];
  return [lineColumn(text, first.offset), describe(printParseErrorCode(first.error))];
}

/** "InvalidSymbol" → "invalid symbol". */
const describe = (code: string) => code.replace(/(?<=[a-z])(?=[A-Z])/g, ' ').toLowerCase();
