import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * The data and crypto routes through the local gateway over real HTTP, each answer read by an
 * independent reference (Python's parsers, GNU patch, PyJWT, openssl, oathtool), and the hostile
 * bodies of the contract's resource bounds answered 4xx or 200 while /status keeps answering.
 */

const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';

/** The fields these tests read of an answer. */
interface Answer {
  [field: string]: unknown;
  result: string;
  diff: string;
  publicKey: string;
  privateKey: string;
  token: string;
  secret: string;
  code: string;
  score: number;
  error: string;
  message: string;
}

const post = async (route: string, body: unknown) => {
  const response = await postJson(`${gateway.url}${route}`, body, { 'x-api-key': SHARED_KEYS.enterprise });
  return { status: response.status, body: (await response.json()) as Answer };
};

beforeAll(async () => {
  gateway = sharedGateway();
  dir = await mkdtemp(join(tmpdir(), 'data-crypto-'));
  await sources.start();
});
afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('each route answers as the contract says', () => {
  it('/data-convert: YAML to JSON, read back by Python', async () => {
    const yaml = 'name: Ada\nborn: 1815\ntags: [math, "Wörld"]\nnested: {a: null}\n';
    const { status, body } = await post('/data-convert', { text: yaml, from: 'yaml', to: 'json' });
    expect(status).toBe(200);
    const python = execFileSync(
      '/usr/bin/python3',
      ['-c', 'import json,sys,yaml;print(json.dumps(yaml.safe_load(sys.stdin.read())))'],
      { input: yaml, encoding: 'utf8' },
    );
    expect(JSON.parse(body.result)).toEqual(JSON.parse(python));
    const broken = await post('/data-convert', { text: 'a: [1,\nb: 2', from: 'yaml', to: 'json' });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({
      error: 'invalid_input',
      message: expect.stringMatching(/line \d+, column \d+/),
    });
  });

  it('/markdown-to-html: a fragment, raw HTML shown as text', async () => {
    const { status, body } = await post('/markdown-to-html', { markdown: '# Title\n\n*a* <b>x</b>' });
    expect(status).toBe(200);
    expect(body.html).toBe('<h1>Title</h1>\n<p><em>a</em> &lt;b&gt;x&lt;/b&gt;</p>\n');
  });

  it('/text-diff: a unified diff that GNU patch applies', async () => {
    const original = 'one\ntwo\nthree\nfour\n';
    const modified = 'one\n2\nthree\nfour\nfive\n';
    const { status, body } = await post('/text-diff', { original, modified });
    expect(status).toBe(200);
    expect(body).toMatchObject({ added: 2, removed: 1 });
    const [source, patchFile, output] = ['a.txt', 'a.patch', 'b.txt'].map((name) => join(dir, name));
    await writeFile(source!, original);
    await writeFile(patchFile!, body.diff);
    await run('patch', ['--quiet', '-o', output!, source!, patchFile!]);
    expect(await readFile(output!, 'utf8')).toBe(modified);
    const words = await post('/text-diff', { original: 'a b', modified: 'a c', granularity: 'word' });
    expect(words.status).toBe(400);
    expect(words.body.message).toMatch(/granularity/);
  });

  it('/json-validate: errors by JSON Pointer; a remote $ref is refused and never fetched', async () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^[a-z]+$' } },
      required: ['id'],
    };
    expect((await post('/json-validate', { data: { id: 'abc' }, schema })).body).toEqual({
      valid: true,
      errors: [],
      errorCount: 0,
    });
    const invalid = await post('/json-validate', { data: { id: 'ABC' }, schema });
    expect(invalid.body).toEqual({
      valid: false,
      errors: [{ path: '/id', message: 'must match pattern "^[a-z]+$"' }],
      errorCount: 1,
    });
    let fetched = 0;
    const remote = sources.route('/schema.json', (_request, response) => {
      fetched += 1;
      response.end('{"type":"string"}');
    });
    const refused = await post('/json-validate', { data: 'x', schema: { $ref: remote } });
    expect([refused.status, refused.body.error, fetched]).toEqual([400, 'invalid_input', 0]);
  });

  it('/jwt-sign: a token that /jwt-verify and PyJWT accept', async () => {
    const pair = await post('/keypair', { type: 'ec', curve: 'P-256' });
    const signed = await post('/jwt-sign', {
      payload: { role: 'reader' },
      privateKey: pair.body.privateKey,
      issuer: 'files.example',
      expiresIn: 300,
    });
    expect(signed.status).toBe(200);
    const verified = await post('/jwt-verify', { token: signed.body.token, publicKey: pair.body.publicKey });
    expect(verified.body).toMatchObject({ valid: true, payload: { role: 'reader', iss: 'files.example' } });
    const python = execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import json,sys,jwt;t,k=json.load(sys.stdin);print(json.dumps(jwt.decode(t,k,algorithms=["ES256"])))',
      ],
      { input: JSON.stringify([signed.body.token, pair.body.publicKey]), encoding: 'utf8' },
    );
    expect(JSON.parse(python)).toMatchObject({ role: 'reader', iss: 'files.example' });
  });

  it('/keypair: an RSA pair that openssl reads as 2048 bits', async () => {
    const { status, body } = await post('/keypair', {});
    expect([status, body.type]).toEqual([200, 'rsa']);
    const file = join(dir, 'rsa.pem');
    await writeFile(file, body.privateKey, { mode: 0o600 });
    const [text, publicKey] = await Promise.all([
      run('openssl', ['pkey', '-in', file, '-noout', '-text']),
      run('openssl', ['pkey', '-in', file, '-pubout']),
    ]);
    expect(text.stdout).toMatch(/Private-Key: \(2048 bit/);
    expect(publicKey.stdout).toBe(body.publicKey);
    const wrong = await post('/keypair', { type: 'ed25519', curve: 'P-256' });
    expect([wrong.status, wrong.body.error]).toEqual([400, 'validation_failed']);
  });

  it('/totp and /totp-verify: the code oathtool makes, verified', async () => {
    const made = await post('/totp', { issuer: 'Files', account: 'ada@example.com' });
    expect(made.status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const { stdout } = await run('oathtool', [
      '--totp',
      '-N',
      `@${now - 30}`,
      '-w',
      '2',
      '-b',
      made.body.secret,
    ]);
    expect(stdout.trim().split('\n')).toContain(made.body.code);
    const verified = await post('/totp-verify', { secret: made.body.secret, code: made.body.code });
    expect(verified.body).toMatchObject({ valid: true });
    const refused = await post('/totp-verify', { secret: made.body.secret, code: '12ab56' });
    expect([refused.status, refused.body.error]).toEqual([400, 'validation_failed']);
  });

  it('/password-strength: zxcvbn’s score and feedback', async () => {
    const weak = await post('/password-strength', { password: 'password' });
    expect(weak.body).toMatchObject({
      score: 0,
      warning: expect.any(String),
      suggestions: expect.any(Array),
    });
    const strong = await post('/password-strength', { password: 'correcthorsebatterystaple' });
    expect(strong.body.score).toBe(4);
  });
});

describe('hostile bodies answer 4xx or 200, never 5xx, while /status answers', () => {
  const aliasBomb = () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level += 1) {
      const [previous, name] = [String.fromCharCode(96 + level), String.fromCharCode(97 + level)];
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    }
    return levels.join('\n');
  };
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const disjointLines = (prefix: string) =>
    Array.from(
      { length: 15_000 },
      (_, index) => `${prefix} ${index.toString(36).padStart(24, prefix)}\n`,
    ).join('');

  const hostile: [string, string, () => unknown, number][] = [
    ['a YAML alias bomb', '/data-convert', () => ({ text: aliasBomb(), from: 'yaml', to: 'json' }), 400],
    [
      'XML entity expansion',
      '/data-convert',
      () => ({
        text: '<!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><l>&b;</l>',
        from: 'xml',
        to: 'json',
      }),
      400,
    ],
    [
      'JSON nested 10 000 deep',
      '/data-convert',
      () => ({ text: nested(10_000), from: 'json', to: 'yaml' }),
      400,
    ],
    [
      'a catastrophic pattern',
      '/json-validate',
      () => ({ data: `${'a'.repeat(100_000)}!`, schema: { pattern: '^(a+)+$' } }),
      200,
    ],
    ['data nested 10 000 deep', '/json-validate', () => `{"schema":true,"data":${nested(10_000)}}`, 400],
    [
      'two ~450 KiB texts with nothing in common',
      '/text-diff',
      () => ({ original: disjointLines('o'), modified: disjointLines('n') }),
      200,
    ],
  ];

  it.each(hostile)('%s (%s)', async (_name, route, body, expected) => {
    const answer = post(route, body());
    const status = await fetch(`${gateway.url}/status`, { headers: { 'x-api-key': SHARED_KEYS.enterprise } });
    expect(status.status).toBe(200);
    const { status: code, body: answered } = await answer;
    expect(code).toBe(expected);
    if (expected === 400) expect(Object.keys(answered).sort()).toEqual(['error', 'message']);
  });

  it('an external DTD is never fetched', async () => {
    let fetched = 0;
    const dtd = sources.route('/evil.dtd', (_request, response) => {
      fetched += 1;
      response.end('<!ENTITY e "pwned">');
    });
    const text = `<?xml version="1.0"?><!DOCTYPE a SYSTEM "${dtd}"><a>x</a>`;
    const { status, body } = await post('/data-convert', { text, from: 'xml', to: 'json', indent: 0 });
    expect([status, body.result, fetched]).toEqual([200, '{"a":"x"}', 0]);
  });
});
