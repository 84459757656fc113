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
