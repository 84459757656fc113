import {
  dataConvertBody,
  dataConvertResult,
  jsonValidateBody,
  jsonValidateResult,
  markdownToHtmlBody,
  markdownToHtmlResult,
  textDiffBody,
  textDiffResult,
} from '#shared/data/schemas.ts';
import { bufferedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, type RouteSpec } from '#shared/routes/types.ts';

const data = { method: 'POST', kind: 'json', tag: 'Text' } as const;

export const dataConvertRoute = defineRoute({
  ...data,
  path: '/data-convert',
  function: 'data-convert',
  sizing: bufferedSizing(512, false),
  formats: {
    categories: ['text'],
    inputs: ['json', 'yaml', 'toml', 'csv', 'xml'],
    outputs: ['json', 'yaml', 'toml', 'csv', 'xml'],
  },
  summary: 'Convert data between JSON, YAML, TOML, CSV and XML',
  description:
    'Reads `text` as `from` and writes the same data as `to`. YAML is YAML 1.2 (core schema) read as plain data: ' +
    'unknown tags are read as the value they tag, and more than 100 resolved aliases (an alias bomb) are refused. ' +
    'TOML is 1.0. CSV is RFC 4180 with a header row: it becomes an array of objects of strings, and a row with ' +
    'another number of fields is refused; written, the header holds every field in the order first seen, and an ' +
    'object or array in a cell is written as JSON. XML is read without DTDs: only the predefined entities and ' +
    'character references are expanded, nothing is fetched, and a reference to a declared entity is refused; ' +
    'attributes become `@name` keys, text beside elements `#text`, a repeated element an array, and all text stays ' +
    'text. Data nested deeper than 128 levels, and a result past 4 MiB, are refused. Input that does not parse ' +
    'answers 400 `invalid_input` naming the line and column (for CSV the column counts fields); so does data the ' +
    'target cannot hold: null in TOML, NaN in JSON, a top-level array in TOML, a key that is no XML name.',
  body: dataConvertBody,
  response: dataConvertResult,
  example: { text: 'name: Ada\nlanguages: [en, fr]\n', from: 'yaml', to: 'json' },
  responseExample: { result: '{\n  "name": "Ada",\n  "languages": [\n    "en",\n    "fr"\n  ]\n}' },
  errors: ['invalid_input'],
});

export const markdownToHtmlRoute = defineRoute({
  ...data,
  path: '/markdown-to-html',
  function: 'markdown-to-html',
  sizing: bufferedSizing(256, false),
  formats: { categories: ['text'], inputs: ['markdown'], outputs: ['html'] },
  summary: 'Render Markdown as HTML',
  description:
    'CommonMark with GitHub-style tables, by the renderer of /markdown-to-pdf: raw HTML in the Markdown is escaped ' +
    'and shown as text, never passed through. A fragment by default; `fullDocument` wraps it in a whole HTML5 ' +
    'document titled by the first heading. A table wider than 100 columns answers 400 `invalid_input`.',
  body: markdownToHtmlBody,
  response: markdownToHtmlResult,
  example: { markdown: '# Hello\n\nSome *emphasis* and <b>raw HTML</b>.' },
  responseExample: {
    html: '<h1>Hello</h1>\n<p>Some <em>emphasis</em> and &lt;b&gt;raw HTML&lt;/b&gt;.</p>\n',
  },
  errors: ['invalid_input'],
});

export const textDiffRoute = defineRoute({
  ...data,
  path: '/text-diff',
  function: 'text-diff',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['text'], inputs: ['text'], outputs: ['json'] },
  summary: 'Diff two texts',
  description:
    'format unified: a unified diff of lines (headers `--- original` and `+++ modified`) that GNU patch applies. ' +
    'format json: the texts as a list of equal, insert and delete changes, of lines, words or characters. ' +
    '`added` and `removed` count lines, words or characters. The search for the shortest diff stops after 0.5 s or ' +
    '20 000 edits; the answer then replaces the original whole by the modified text: still a correct diff, not the ' +
    'shortest.',
  body: textDiffBody,
  response: textDiffResult,
  example: { original: 'one\ntwo\nthree\n', modified: 'one\n2\nthree\n' },
  responseExample: {
    diff: '--- original\n+++ modified\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n',
    added: 1,
    removed: 1,
  },
  errors: [],
});

export const jsonValidateRoute = defineRoute({
  ...data,
  path: '/json-validate',
  function: 'json-validate',
  sizing: bufferedSizing(512, false),
  formats: { categories: ['text'], inputs: ['json'], outputs: ['json'] },
  summary: 'Validate JSON against a JSON Schema',
  description:
    'JSON Schema 2020-12 (the default), 2019-09 or draft-07, chosen by `$schema`, with the formats of ajv-formats. ' +
    '`$ref` resolves inside the schema only: nothing is fetched, and a reference elsewhere answers 400 ' +
    '`invalid_input`, as does a schema that is not valid. `pattern`s run on RE2, in time linear in the text; a ' +
    'pattern RE2 cannot run (lookaround, backreferences) is refused. Compiling and validating stop after 1 s each ' +
    '(400 `invalid_input`): a schema can make the work exponential. Data or schema nested deeper than 128 levels ' +
    'answer 400 `validation_failed`. `errors` lists at most 100, `errorCount` all.',
  body: jsonValidateBody,
  response: jsonValidateResult,
  example: {
    data: { name: 'Ada', age: -1 },
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      required: ['name'],
    },
  },
  responseExample: { valid: false, errors: [{ path: '/age', message: 'must be >= 0' }], errorCount: 1 },
  errors: ['invalid_input'],
});

export const dataRoutes: RouteSpec[] = [
  dataConvertRoute,
  markdownToHtmlRoute,
  textDiffRoute,
  jsonValidateRoute,
];
