import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeCase } from '#shared/text/text-case.ts';

describe('changeCase keeps the text and changes letter case', () => {
  const text = 'hELLO wonderful wORLD. this is "fun", isn’t it? ok…  and (so) on!\n\nnew paragraph';
  it.each([
    ['lower', 'hello wonderful world. this is "fun", isn’t it? ok…  and (so) on!\n\nnew paragraph'],
    ['upper', 'HELLO WONDERFUL WORLD. THIS IS "FUN", ISN’T IT? OK…  AND (SO) ON!\n\nNEW PARAGRAPH'],
    ['title', 'Hello Wonderful World. This Is "Fun", Isn’t It? Ok…  And (So) On!\n\nNew Paragraph'],
    ['sentence', 'Hello wonderful world. This is "fun", isn’t it? Ok…  And (so) on!\n\nNew paragraph'],
  ] as const)('%s', (textCase, expected) => {
    expect(changeCase(text, textCase)).toBe(expected);
  });

  it('capitalises a sentence behind an opening quote or bracket', () => {
    expect(changeCase('"why not?" (nobody knew.)', 'sentence')).toBe('"Why not?" (Nobody knew.)');
  });
});

describe('changeCase builds identifiers from the words', () => {
  const text = 'Hello wonderful World. this is "fun", isn’t it? ok';
  it.each([
    ['camel', 'helloWonderfulWorldThisIsFunIsnTItOk'],
    ['pascal', 'HelloWonderfulWorldThisIsFunIsnTItOk'],
    ['snake', 'hello_wonderful_world_this_is_fun_isn_t_it_ok'],
    ['kebab', 'hello-wonderful-world-this-is-fun-isn-t-it-ok'],
    ['constant', 'HELLO_WONDERFUL_WORLD_THIS_IS_FUN_ISN_T_IT_OK'],
  ] as const)('%s', (textCase, expected) => {
    expect(changeCase(text, textCase)).toBe(expected);
  });

  it('splits at case changes and handles non-ASCII letters', () => {
    expect(changeCase('XMLHttpRequest parser', 'snake')).toBe('xml_http_request_parser');
    expect(changeCase('grüße aus köln', 'pascal')).toBe('GrüßeAusKöln');
    expect(changeCase('élan vital', 'title')).toBe('Élan Vital');
  });
});

/**
 * The regular expression sentence case used before it became one pass over the text; it is the
 * reference for what counts as a sentence start (on short texts, where its quadratic time is moot).
 */
const referencePattern = /(^|\n\s*\n|[.!?…]['"’”)\]]*\s+)([^\p{L}]*?)(\p{L})/gu;
const referenceSentenceCase = (text: string) =>
  text
    .toLowerCase()
    .replace(
      referencePattern,
      (_match, before, between, letter: string) => before + between + letter.toUpperCase(),
    );

describe('sentence case', () => {
  it('starts sentences exactly where the former regular expression did', () => {
    const pieces = fc.constantFrom(
      'a',
      'B',
      'é',
      'ß',
      '1',
      ' ',
      '\n',
      '\r\n',
      '\t',
      '\u00a0',
      '.',
      '!',
      '?',
      '…',
      '"',
      '’',
      ')',
      ']',
      ',',
      '-',
      '😀',
      '𝒜',
    );
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join('')),
        (text) => {
          expect(changeCase(text, 'sentence')).toBe(referenceSentenceCase(text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  // The former pattern took 16 s on 256 KB of ". " and minutes on 1 MB; the route's time limit is
  // 29 s. One pass finishes these in well under a second, so the bound below has a huge margin.
  it.each([
    ['". " repeated', '. '.repeat(500_000)],
    ['line breaks only', '\n'.repeat(1_000_000)],
    ['". \\n" repeated', '. \n'.repeat(333_333)],
    ['end marks and closers, no letter', '.)"'.repeat(333_333)],
  ])('1 MB with no letter after sentence ends (%s) ends within the route timeout', (_name, text) => {
    const started = performance.now();
    const result = changeCase(text, 'sentence');
    expect(result).toBe(text);
    expect(performance.now() - started).toBeLessThan(29_000);
  });
});
