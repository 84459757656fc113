import {
  type ChangeObject,
  characterDiff,
  diffChars,
  diffLines,
  diffWords,
  FILE_HEADERS_ONLY,
  formatPatch,
  lineDiff,
  type StructuredPatch,
  structuredPatch,
  wordDiff,
} from 'diff';
import { type DiffGranularity, diffMaxEdits, diffTimeoutMs } from '#shared/data/limits.ts';

export interface TextDiffInput {
  original: string;
  modified: string;
  granularity: DiffGranularity;
  format: 'unified' | 'json';
  context: number;
}

export interface Change {
  type: 'equal' | 'insert' | 'delete';
  value: string;
}

export type TextDiff =
  | { diff: string; added: number; removed: number }
  | { changes: Change[]; added: number; removed: number };

const bounds = { timeout: diffTimeoutMs, maxEditLength: diffMaxEdits };

/**
 * The difference between two texts: a unified diff (of lines, as `diff -u` writes it and `patch`
 * applies it) or the list of changes at the chosen granularity. `added` and `removed` count lines,
 * words or characters. When the texts differ past the search's bounds (time or edits), the answer
 * replaces the one text by the other whole: a correct diff, though not the shortest one.
 */
export function diffTexts(input: TextDiffInput): TextDiff {
  return input.format === 'unified' ? unifiedDiff(input) : changeList(input);
}

function unifiedDiff({ original, modified, context }: TextDiffInput): TextDiff {
  const patch =
    structuredPatch('original', 'modified', original, modified, undefined, undefined, {
      context,
      ...bounds,
    }) ?? wholeReplacement(original, modified);
  const lines = patch.hunks.flatMap((hunk) => hunk.lines);
  return {
    diff: patch.hunks.length === 0 ? '' : formatPatch(patch, FILE_HEADERS_ONLY),
    added: lines.filter((line) => line.startsWith('+')).length,
    removed: lines.filter((line) => line.startsWith('-')).length,
  };
}

/** One hunk that removes every line of the original and adds every line of the modified text. */
function wholeReplacement(original: string, modified: string): StructuredPatch {
  const removal = structuredPatch('original', 'modified', original, '', undefined, undefined, { context: 0 });
  const addition = structuredPatch('original', 'modified', '', modified, undefined, undefined, {
    context: 0,
  });
  const [removed, added] = [removal.hunks[0], addition.hunks[0]];
  return {
    ...removal,
    hunks: [
      {
        oldStart: removed?.oldStart ?? 0,
        oldLines: removed?.oldLines ?? 0,
        newStart: added?.newStart ?? 0,
        newLines: added?.newLines ?? 0,
        lines: [...(removed?.lines ?? []), ...(added?.lines ?? [])],
      },
    ],
  };
}

const engines = {
  line: { diff: (a: string, b: string) => diffLines(a, b, bounds), tokens: lineDiff },
  word: { diff: (a: string, b: string) => diffWords(a, b, bounds), tokens: wordDiff },
  char: { diff: (a: string, b: string) => diffChars(a, b, bounds), tokens: characterDiff },
} as const;

function changeList({ original, modified, granularity }: TextDiffInput): TextDiff {
  const engine = engines[granularity];
  const changes: ChangeObject<string>[] = engine.diff(original, modified) ?? [
    { value: original, added: false, removed: true, count: engine.tokens.tokenize(original, {}).length },
    { value: modified, added: true, removed: false, count: engine.tokens.tokenize(modified, {}).length },
  ];
  const count = (kind: 'added' | 'removed') =>
    changes.filter((change) => change[kind]).reduce((sum, change) => sum + change.count, 0);
  return {
    changes: changes
      .filter((change) => change.value !== '')
      .map((change) => ({
        type: change.added ? 'insert' : change.removed ? 'delete' : 'equal',
        value: change.value,
      })),
    added: count('added'),
    removed: count('removed'),
  };
}
