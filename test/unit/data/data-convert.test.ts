import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { convertData } from '#shared/data/convert.ts';
import type { DataFormat } from '#shared/data/limits.ts';

/**
 * /data-convert's work: each format read back by Python's own parsers (json, tomllib, csv,
 * xml.etree, PyYAML), and the hostile inputs of the contract's resource bounds refused quickly.
 */

/**
 * Python's reading of each (format, text), as JSON values, in one run of the interpreter: a
 * function per format, the texts in on stdin as JSON.
 */
const pythonReader = `
import csv, io, json, sys, tomllib, yaml, xml.etree.ElementTree as ET
def walk(e):
    kids = {}
    for c in e:
        kids.setdefault(c.tag, []).append(walk(c))
    d = {'@' + k: v for k, v in e.attrib.items()}
    d.update({k: (v[0] if len(v) == 1 else v) for k, v in kids.items()})
    t = (e.text or '').strip()
    if not d:
        return t
    if t:
        d['#text'] = t
    return d
def read_xml(text):
    r = ET.fromstring(text)
    return {r.tag: walk(r)}
readers = {
    'json': json.loads,
    'yaml': yaml.safe_load,
    'toml': tomllib.loads,
    'csv': lambda text: list(csv.DictReader(io.StringIO(text, newline=''))),
    'xml': read_xml,
}
print(json.dumps([readers[f](t) for f, t in json.load(sys.stdin)], default=str))
`;

function readAllByPython(items: readonly (readonly [DataFormat, string])[]): unknown[] {
  const output = execFileSync('/usr/bin/python3', ['-c', pythonReader], {
    input: JSON.stringify(items),
    encoding: 'utf8',
  });
  return JSON.parse(output) as unknown[];
}

const convert = (text: string, from: DataFormat, to: DataFormat, indent = 2) =>
  convertData({ text, from, to, indent, delimiter: ',' });

const record = {
  name: 'Ada Lovelace',
  born: 1815,
  ratio: 0.5,
  active: true,
  tags: ['math', 'Wörld', 'a "quoted" & <tagged> text'],
  address: { city: 'London', lines: ['12 St James’s Square', ''] },
};
const element = { person: { '@id': '7', name: 'Ada & co', tag: ['a', 'b'] } };
const rows = [
  { id: '1', text: 'plain' },
  { id: '2', text: 'with, comma' },
  { id: '3', text: 'with "quotes"\nand a line break' },
];
const sources = {
  yaml: 'name: Ada\nborn: 1815\nlist:\n  - 1\n  - two\nnested: {a: [1, {b: null}]}\n',
  toml: 'title = "TOML"\nwhen = 1979-05-27\n[owner]\nname = "Tom"\nscores = [1, 2, 3]\n[[items]]\nid = 1\n[[items]]\nid = 2\n',
  csv: 'id,name,note\n1,Ada,"first, of all"\n2,Bob,""\n',
  xml: '<?xml version="1.0"?>\n<library kind="public">\n  <book id="1"><title>A &amp; B</title></book>\n  <book id="2"><title>&#67;</title></book>\n</library>\n',
} as const;

describe('data-convert against Python’s parsers', () => {
  // What the service writes, and the sources it reads, all read by Python at once.
  const written = [
    ['yaml', convert(JSON.stringify(record), 'json', 'yaml')],
    ['toml', convert(JSON.stringify(record), 'json', 'toml')],
    ['json', convert(JSON.stringify(record), 'json', 'json')],
    ['xml', convert(JSON.stringify(element), 'json', 'xml')],
    ['csv', convert(JSON.stringify(rows), 'json', 'csv')],
    ['toml', convert(sources.toml, 'toml', 'toml')],
  ] as const;
  const read = readAllByPython([...written, ...Object.entries(sources)] as [DataFormat, string][]);

  it.each([0, 1, 2])('JSON → %#: YAML, TOML and JSON read back as the same data', (index) => {
    expect(read[index]).toEqual(record);
  });

  it('JSON → XML reads back with ElementTree as the same elements (all text)', () => {
    expect(read[3]).toEqual(element);
  });

  it('JSON records → CSV reads back with csv.DictReader, quoting commas, quotes and line breaks', () => {
    expect(read[4]).toEqual(rows);
  });

  it('TOML → TOML keeps its dates as dates', () => {
    expect(read[5]).toEqual(read[written.length + 1]);
  });

  it.each(Object.keys(sources).map((format, index) => [format, index] as const))(
    '%s → JSON is what Python reads',
    (from, index) => {
      const expected = read[written.length + index];
      const answer = JSON.parse(convert(sources[from as keyof typeof sources], from as DataFormat, 'json'));
      // TOML dates are written as text in JSON: Python's str() of a date is the same text.
      expect(answer).toEqual(expected);
    },
  );

  it('writes indent 0 as one line, and YAML then in flow style', () => {
    expect(convert('{"a": [1, 2]}', 'json', 'json', 0)).toBe('{"a":[1,2]}');
    expect(convert('{"a": [1, 2]}', 'json', 'yaml', 0).trim()).toBe('{ a: [ 1, 2 ] }');
  });

  it('reads YAML 1.2: yes and on stay text (PyYAML reads YAML 1.1, where they are booleans)', () => {
    expect(JSON.parse(convert('a: yes\nb: on\nc: true\n', 'yaml', 'json'))).toEqual({
      a: 'yes',
      b: 'on',
      c: true,
    });
  });

  it('writes TOML date-times as their text in JSON', () => {
    expect(JSON.parse(convert('when = 1979-05-27T07:32:00Z\n', 'toml', 'json'))).toEqual({
      when: '1979-05-27T07:32:00.000Z',
    });
  });
});

describe('data-convert errors name line and column', () => {
  it.each([
    ['json', '{\n  "a": 1,\n  "b": }', /^text is not valid JSON: line 3, column 8: /],
    ['yaml', 'a: 1\nb: [1, 2\nc: 3', /^text is not valid YAML: line 3, column 1: /],
    ['toml', 'a = 1\nb = \n', /^text is not valid TOML: line 2, column 5: /],
    ['csv', 'a,b\n1,2,3\n', /^text is not valid CSV: line 2, column 4: /],
    ['xml', '<a>\n  <b></c>\n</a>', /^text is not valid XML: line 2, column \d+: /],
  ] as const)('%s', (from, text, message) => {
    expect(() => convert(text, from, 'json')).toThrow(message);
  });

  it('refuses what the target cannot hold, naming where', () => {
    expect(() => convert('{"a": {"b": null}}', 'json', 'toml')).toThrow(
      'TOML has no null: the data holds one at /a/b.',
    );
    expect(() => convert('[1]', 'json', 'toml')).toThrow(/TOML holds a table at the top/);
    expect(() => convert('x = nan', 'toml', 'json')).toThrow(
      'JSON has no NaN or infinity: the data holds NaN at /x.',
    );
    expect(() => convert('{"first name": 1}', 'json', 'xml')).toThrow(
      /"first name" cannot be an XML element/,
    );
    expect(() => convert('a,a\n1,2\n', 'csv', 'json')).toThrow(/names the field "a" twice/);
  });
});

describe('data-convert bounds hostile input', () => {
  const deep = 10_000;
  it.each([
    ['json', `${'['.repeat(deep)}${']'.repeat(deep)}`],
    ['yaml', `${'['.repeat(deep)}${']'.repeat(deep)}`],
    ['yaml', `${'- '.repeat(deep)}x`],
    ['yaml', Array.from({ length: 1400 }, (_, level) => `${' '.repeat(level)}a:`).join('\n')],
    ['toml', `a = ${'['.repeat(deep)}${']'.repeat(deep)}`],
    ['toml', `${Array.from({ length: deep }, () => 'a').join('.')} = 1`],
    ['xml', `${'<a>'.repeat(deep)}${'</a>'.repeat(deep)}`],
  ] as const)('%s nested 10 000 deep is refused', (from, text) => {
    expect(() => convert(text, from, 'json')).toThrow(/nest/);
  });

  it('a YAML alias bomb is refused before it expands', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    }
    expect(() => convert(levels.join('\n'), 'yaml', 'json')).toThrow(/alias bomb/);
  });

  it('XML entities a DTD declares are never expanded, and an external DTD is never fetched', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
    expect(() => convert(laughs, 'xml', 'json')).toThrow(/line 1, column \d+: undefined entity/);
    const external = '<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>';
    expect(() => convert(external, 'xml', 'json')).toThrow(/undefined entity/);
    // A DTD that only names an external subset is skipped, not fetched (the address cannot answer).
    expect(convert('<!DOCTYPE a SYSTEM "http://127.0.0.1:9/a.dtd"><a>x</a>', 'xml', 'json', 0)).toBe(
      '{"a":"x"}',
    );
  });

  it('a result that indentation would make huge is refused before it is written', () => {
    const wide = `[${Array.from({ length: 1500 }, () => `${'['.repeat(100)}${']'.repeat(100)}`).join(',')}]`;
    expect(() => convert(wide, 'json', 'yaml', 8)).toThrow(/larger than the 4 MiB/);
  });
});
