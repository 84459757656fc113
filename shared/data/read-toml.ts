import { parse, TomlError } from 'smol-toml';
import { maxNestingDepth } from '#shared/data/limits.ts';
import { notValid } from '#shared/data/position.ts';

/** TOML 1.0. Dates and times come back as TomlDate objects, written as TOML writes them. */
export function readToml(text: string): Record<string, unknown> {
  try {
    return parse(text, { maxDepth: maxNestingDepth });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    throw notValid('TOML', { line: error.line, column: error.column }, reason, error);
  }
}
