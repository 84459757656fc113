import { ApiError } from '#shared/errors.ts';

/** Line and column (both from 1) of a UTF-16 offset into the text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < offset;
    index = text.indexOf('\n', index + 1)
  ) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The 400 for input that does not parse: its format, where, and why, never the input itself. */
export function notValid(
  format: string,
  where: { line: number; column: number } | undefined,
  reason: string,
  cause?: unknown,
): ApiError {
  const at = where ? `line ${where.line}, column ${where.column}: ` : '';
  return new ApiError('invalid_input', `text is not valid ${format}: ${at}${reason}`, { cause });
}
