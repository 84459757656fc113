import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateJson } from '#shared/data/json-validate.ts';
import { markdownToHtmlText } from '#shared/data/markdown-html.ts';
import { diffTexts, type TextDiffInput } from '#shared/data/text-diff.ts';
import { ApiError } from '#shared/errors.ts';
import { FixtureServer } from '../../support/fixture-server.ts';

/**
 * /text-diff, /json-validate and /markdown-to-html: each diff applied by GNU patch, schemas of the
 * three dialects with the results their specifications state, CommonMark's own examples, and the
 * hostile inputs of the contract's resource bounds answered quickly.
 */

const run = promisify(execFile);

const failureOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  return { code: 'accepted', message: '' };
};

describe('text-diff, read back by GNU patch', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'text-diff-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const unified = (original: string, modified: string, context = 3) =>
    diffTexts({ original, modified, granularity: 'line', format: 'unified', context }) as {
      diff: string;
      added: number;
      removed: number;
    };

  /** What GNU patch makes of the original with the diff applied. */
  async function patched(name: string, original: string, diff: string): Promise<string> {
    const [source, patchFile, output] = ['a', 'p', 'out'].map((part) => join(dir, `${name}.${part}`));
    await writeFile(source!, original);
    await writeFile(patchFile!, diff);
    await run('patch', ['--quiet', '--force', '-o', output!, source!, patchFile!]);
    return readFile(output!, 'utf8');
  }

  const lines = (count: number, make: (index: number) => string) =>
    Array.from({ length: count }, (_, index) => `${make(index)}\n`).join('');

  const cases: [string, string, string][] = [
    ['one changed line', 'alpha\nbeta\ngamma\n', 'alpha\nBETA\ngamma\n'],
    ['lines added at both ends', 'middle\n', 'first\nmiddle\nlast\n'],
    ['no newline at the end of either', 'a\nb\nc', 'a\nB\nc'],
    ['a newline added at the end', 'a\nb', 'a\nb\n'],
    ['Unicode and CRLF line ends', 'Grüße\r\nΚαλημέρα\r\n日本語\r\n', 'Grüße\r\nΚαλησπέρα\r\n日本語\r\n'],
    [
      'far-apart changes (two hunks)',
      lines(40, (i) => `line ${i}`),
      lines(40, (i) => (i % 30 === 5 ? `changed ${i}` : `line ${i}`)),
    ],
    ['everything removed', 'only\nlines\n', ''],
    ['from nothing', '', 'new\ntext\n'],
  ];

  it.each(cases)('%s: patch turns the original into the modified text', async (name, original, modified) => {
    const { diff } = unified(original, modified);
    expect(diff).toMatch(/^--- original\n\+\+\+ modified\n@@ /);
    expect(await patched(name.replace(/\W+/g, '-'), original, diff)).toBe(modified);
  });

  it('counts lines added and removed, and leaves equal texts without a diff', () => {
    expect(unified('a\nb\nc\n', 'a\nx\ny\nc\n')).toMatchObject({ added: 2, removed: 1 });
    expect(unified('same\n', 'same\n')).toEqual({ diff: '', added: 0, removed: 0 });
  });

  it('keeps the asked context lines around a change', () => {
    const original = lines(20, (i) => `l${i}`);
    const modified = original.replace('l10\n', 'L10\n');
    const hunkLines = (context: number) =>
      unified(original, modified, context)
        .diff.split('\n')
        .filter((line) => line.startsWith(' ')).length;
    expect([hunkLines(0), hunkLines(1), hunkLines(3)]).toEqual([0, 2, 6]);
  });

  it('lists changes by word and by character', () => {
    const json = (granularity: TextDiffInput['granularity'], original: string, modified: string) =>
      diffTexts({ original, modified, granularity, format: 'json', context: 3 });
    expect(json('word', 'the quick brown fox', 'the slow brown fox')).toEqual({
      changes: [
        { type: 'equal', value: 'the ' },
        { type: 'delete', value: 'quick' },
        { type: 'insert', value: 'slow' },
        { type: 'equal', value: ' brown fox' },
      ],
      added: 1,
      removed: 1,
    });
    expect(json('char', 'kitten', 'sitting')).toMatchObject({ added: 3, removed: 2 });
  });

  // Without the search's bounds, Myers' algorithm takes minutes here: past the test's time.
  it('two 1 MiB texts with nothing in common: a correct diff, the search cut at its bounds', async () => {
    const original = lines(32 * 1024, (i) => `old ${i.toString(36).padStart(27, 'o')}`);
    const modified = lines(32 * 1024, (i) => `new ${i.toString(36).padStart(27, 'n')}`);
    expect(original.length).toBeGreaterThanOrEqual(1024 * 1024);
    const result = unified(original, modified);
    expect(result).toMatchObject({ added: 32 * 1024, removed: 32 * 1024 });
    expect(await patched('disjoint', original, result.diff)).toBe(modified);
    const asJson = diffTexts({ original, modified, granularity: 'char', format: 'json', context: 3 });
    expect(asJson).toMatchObject({ added: modified.length, removed: original.length });
  }, 15_000);
});

describe('json-validate, by the rules of each dialect', () => {
  const verdict = (data: unknown, schema: Record<string, unknown> | boolean) =>
    validateJson(data, schema).valid;

  it('2020-12 (the default): prefixItems, unevaluatedProperties, $defs and $ref', () => {
    const schema = {
      $defs: { positive: { type: 'integer', exclusiveMinimum: 0 } },
      type: 'object',
      properties: {
        point: { prefixItems: [{ $ref: '#/$defs/positive' }, { type: 'string' }], items: false },
      },
      unevaluatedProperties: false,
    };
    expect(verdict({ point: [1, 'a'] }, schema)).toBe(true);
    expect(verdict({ point: [0, 'a'] }, schema)).toBe(false);
    expect(verdict({ point: [1, 'a', 'extra'] }, schema)).toBe(false);
    expect(validateJson({ point: [1, 'a'], other: 1 }, schema).errors).toEqual([
      { path: '', message: 'must NOT have unevaluated properties: "other"' },
    ]);
  });

  it('2019-09: dependentRequired; draft-07: items as a list of schemas', () => {
    const v2019 = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      dependentRequired: { card: ['address'] },
    };
    expect(verdict({ card: 1, address: 'x' }, v2019)).toBe(true);
    expect(verdict({ card: 1 }, v2019)).toBe(false);
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', items: [{ type: 'number' }] };
    expect(verdict([1, 'anything'], draft7)).toBe(true);
    expect(verdict(['x'], draft7)).toBe(false);
  });

  it('names each failing value by its JSON Pointer, and counts past the hundred it lists', () => {
    const schema = { type: 'array', items: { type: 'string', format: 'email' } };
    const result = validateJson(['a@example.com', 'not mail', 3], schema);
    expect(result).toMatchObject({ valid: false, errorCount: 2 });
    expect(result.errors.map((error) => error.path)).toEqual(['/1', '/2']);
    const many = validateJson(
      Array.from({ length: 150 }, () => 1),
      { items: { type: 'string' } },
    );
    expect([many.errors.length, many.errorCount]).toEqual([100, 150]);
  });

  it('refuses a schema that is not one, or of another dialect, with invalid_input', () => {
    expect(failureOf(() => validateJson(1, { type: 12 })).code).toBe('invalid_input');
    expect(failureOf(() => validateJson(1, { $schema: 'http://json-schema.org/draft-04/schema#' }))).toEqual({
      code: 'invalid_input',
      message: expect.stringMatching(/2020-12, 2019-09 or draft-07/),
    });
    expect(failureOf(() => validateJson(1, { $ref: '#/$defs/missing' })).code).toBe('invalid_input');
  });

  describe('a $ref to another address is never fetched', () => {
    const server = new FixtureServer();
    let hits = 0;
    beforeAll(() => server.start());
    afterAll(() => server.stop());

    it('answers invalid_input and asks nobody', () => {
      const schema = {
        $ref: server.route('/schema.json', (_request, response) => {
          hits += 1;
          response.end('{"type":"string"}');
        }),
      };
      expect(failureOf(() => validateJson('x', schema)).code).toBe('invalid_input');
      expect(hits).toBe(0);
    });
  });

  it('a catastrophic pattern runs in linear time; lookaround is refused as it compiles', () => {
    // On a backtracking engine this takes years; past the validation's 1 s bound it would answer
    // invalid_input, not a verdict.
    const schema = { type: 'string', pattern: '^(a+)+$' };
    expect(verdict(`${'a'.repeat(50_000)}!`, schema)).toBe(false);
    expect(verdict('a'.repeat(50_000), schema)).toBe(true);
    expect(failureOf(() => validateJson('x', { pattern: '(?=a)a' })).message).toMatch(/linear time/);
  });

  it('uniqueItems over a long array of distinct objects (quadratic) is stopped at its time bound', () => {
    const data = Array.from({ length: 60_000 }, (_, index) => ({ index, tags: [index] }));
    expect(failureOf(() => validateJson(data, { uniqueItems: true }))).toEqual({
      code: 'invalid_input',
      message: 'Validation took longer than 1 s: the schema makes too much work of this data.',
    });
  });

  it('data and schemas nested 10 000 deep are refused before the validator recurses', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 10_000; level += 1) deep = [deep];
    expect(failureOf(() => validateJson(deep, true))).toEqual({
      code: 'validation_failed',
      message: 'data: nests deeper than 128 levels.',
    });
    let schema: Record<string, unknown> = {};
    for (let level = 0; level < 10_000; level += 1) schema = { items: schema };
    expect(failureOf(() => validateJson([], schema)).message).toBe('schema: nests deeper than 128 levels.');
  });

  it('a schema that refers to itself without descending is refused, not a crash', () => {
    const schema = { $defs: { loop: { $ref: '#/$defs/loop' } }, $ref: '#/$defs/loop' };
    expect(failureOf(() => validateJson(1, schema)).code).toBe('invalid_input');
  });
});

describe('markdown-to-html, as CommonMark writes it', () => {
  it('renders CommonMark and tables', () => {
    // Examples of the CommonMark 0.31 specification, with their published HTML.
    expect(markdownToHtmlText('*foo*', false)).toBe('<p><em>foo</em></p>\n');
    expect(markdownToHtmlText('# foo', false)).toBe('<h1>foo</h1>\n');
    expect(markdownToHtmlText('- a\n- b', false)).toBe('<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n');
    expect(markdownToHtmlText('`<b>`', false)).toBe('<p><code>&lt;b&gt;</code></p>\n');
    expect(markdownToHtmlText('| a | b |\n|---|--:|\n| 1 | 2 |', false)).toBe(
      '<table>\n<thead>\n<tr>\n<th>a</th>\n<th style="text-align:right">b</th>\n</tr>\n</thead>\n' +
        '<tbody>\n<tr>\n<td>1</td>\n<td style="text-align:right">2</td>\n</tr>\n</tbody>\n</table>\n',
    );
  });

  it('shows raw HTML as text and drops javascript: links', () => {
    const html = markdownToHtmlText(
      '<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=y>',
      false,
    );
    expect(html).not.toMatch(/<script|<img|href="javascript/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('makes a whole document titled by its first heading', () => {
    const page = markdownToHtmlText('Intro\n\n## Über <uns> & mehr\n\ntext', true);
    expect(page).toMatch(/^<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">/);
    expect(page).toContain('<title>Über &lt;uns&gt; &amp; mehr</title>');
    expect(page).toContain('<body>\n<p>Intro</p>');
    expect(markdownToHtmlText('no heading', true)).toContain('<title>Document</title>');
  });
});
