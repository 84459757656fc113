import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startLocalGateway } from '../support/gateway.ts';
import { referenceFfprobe } from '../support/reference-tools.ts';

/**
 * Every example of README.md, run as written with bash and curl against a local gateway started
 * with the quick start's settings and `npm run samples`' files, each answer checked as the README
 * documents it: a 2xx status, the content type, the saved file's real type, the JSON's shape, and
 * what the file shows, read by other tools: the text of each PDF (poppler's pdftotext), pixels
 * that are not a blank page in each image and in a PDF without text, and the duration of the media.
 */
const readme = await readFile('README.md', 'utf8');
const section = (title: string) => {
  const start = readme.indexOf(`\n## ${title}`);
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
};
const codeBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map(([, code]) => code!);

const quickStart = codeBlocks(section('Quick start'))[0]!;
const startLine = quickStart.split('\n').find((line) => / npm start/.test(line))!;
/** The variables the quick start sets for `npm start`. */
const settings = Object.fromEntries(
  [...startLine.split(' npm start')[0]!.matchAll(/(\w+)=(\S+)/g)].map(([, name, value]) => [name!, value!]),
);

const [routesBlock] = codeBlocks(section('Routes, one example each'));
const [jobsBlock] = codeBlocks(section('Async jobs'));
const isExample = (line: string) => /^(post|get) /.test(line);
const prelude = routesBlock!
  .split('\n')
  .filter((line) => line.trim() && !line.startsWith('#') && !isExample(line));
const routeExamples = routesBlock!.split('\n').filter(isExample);
/** The async job's examples: each takes the job id from the answer before it, so they run in order. */
const jobExamples = jobsBlock!.split('\n').filter(isExample);
const examples = [...routeExamples, ...jobExamples];

type Shape = Record<string, string>;

/** The keys and values of the outermost object in a documented answer (`{"a":1,"b":{…}} …`). */
function documentedShape(comment: string): Shape | undefined {
  if (!comment.startsWith('{')) return undefined;
  const shape: Shape = {};
  let depth = 0;
  let inString = false;
  let entry = '';
  for (const char of comment) {
    if (inString) {
      entry += char;
      if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    if (char === '{' || char === '[') depth += 1;
    if (char === '}' || char === ']') depth -= 1;
    if (depth === 1 && (char === ',' || char === '{')) {
      if (char === ',') addEntry(shape, entry);
      entry = '';
      continue;
    }
    if (depth === 0) {
      addEntry(shape, entry);
      return shape;
    }
    entry += char;
  }
  throw new Error(`an unclosed documented answer: ${comment}`);
}

function addEntry(shape: Shape, entry: string) {
  const found = /^"(\w+)":([\s\S]+)$/.exec(entry.trim());
  if (found) shape[found[1]!] = found[2]!;
}

/** Checks one documented value: `…` anywhere means "varies", a literal must be equal. */
function expectDocumented(answer: Record<string, unknown>, shape: Shape) {
  for (const [key, documented] of Object.entries(shape)) {
    expect(answer, key).toHaveProperty(key);
    const value = answer[key];
    if (documented.startsWith('{')) expect(typeof value, key).toBe('object');
    else if (documented.startsWith('[')) expect(Array.isArray(value), key).toBe(true);
    else if (documented === '…') expect(value, key).not.toBeUndefined();
    else if (documented.startsWith('"') && documented.includes('…')) {
      expect(String(value).startsWith(documented.slice(1, documented.indexOf('…'))), key).toBe(true);
    } else expect(value, key).toEqual(JSON.parse(documented));
  }
}

const run = promisify(execFile);

/** Text each saved PDF must hold: what its example makes (a PDF without an entry must show pixels). */
const pdfText: Record<string, RegExp> = {
  'merged.pdf': /Sample paper, page 1 of 8[\s\S]*Annex, page 1 of 2/,
  'smaller.pdf': /Sample paper, page 8 of 8/,
  'invoice.pdf': /Invoice 42[\s\S]*Total: € 120\.00/,
  // The sample page's table is drawn by its script: without it the figures are not printed.
  'page.pdf': /Quarterly report[\s\S]*Q3\s+1\.5 M/,
  'notes.pdf': /Release notes[\s\S]*2026-11-25/,
  'report.pdf': /Revenue grew by seven percent/,
  'numbered.pdf': /Page 1 of 8[\s\S]*Page 8 of 8/,
  'filled.pdf': /Ada Lovelace/,
  'flat.pdf': /Name[\s\S]*Grace Hopper/,
  'locked.pdf': /Sample paper, page 1 of 8/,
};

/** The user password of a PDF an example encrypts, to read it back. */
const pdfPasswords: Record<string, string> = { 'locked.pdf': 'reader' };

/** The share of pixels darker than light grey: a blank page or a loading spinner has almost none. */
async function inkShare(image: Buffer): Promise<number> {
  const { data } = await sharp(image)
    .flatten({ background: '#ffffff' })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let ink = 0;
  for (const value of data) if (value < 200) ink += 1;
  return ink / data.length;
}

/** Checks what a saved file shows, beyond its type. */
async function expectContent(path: string, name: string, extension: string) {
  if (extension === 'pdf') {
    const password = pdfPasswords[name];
    const { stdout: text } = await run('pdftotext', [
      ...(password ? ['-upw', password] : []),
      ...['-layout', path, '-'],
    ]);
    const expected = pdfText[name];
    if (expected) {
      expect(text, `${name}: its text`).toMatch(expected);
      return;
    }
    const { stdout: page } = await run('pdftoppm', ['-r', '36', '-f', '1', '-l', '1', '-png', path], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(await inkShare(page), `${name}: ink on its first page`).toBeGreaterThan(0.05);
  } else if (['png', 'jpg', 'webp'].includes(extension)) {
    expect(await inkShare(await readFile(path)), `${name}: ink in the image`).toBeGreaterThan(0.05);
  } else if (['mp3', 'webm', 'm4a'].includes(extension)) {
    const { stdout } = await run(referenceFfprobe, [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      path,
    ]);
    expect(Number(stdout), `${name}: seconds`).toBeGreaterThan(3);
  }
}

describe('README examples, run as written', () => {
  let gateway: RunningGateway;
  let samples: ChildProcess;
  let samplesUrl: string;
  let folder: string;
  let jobId: string | undefined;

  beforeAll(async () => {
    expect(settings).toEqual({ SOURCE_ALLOW_PRIVATE: 'true', API_KEYS: 'dev-key:pro' });
    samples = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'scripts/samples.ts'], {
      env: { ...process.env, SAMPLES_PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    samples.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const ended = once(samples, 'exit').then(() => {
      throw new Error(`npm run samples ended: ${output}`);
    });
    while (!/Samples on (\S+):/.test(output)) {
      await Promise.race([once(samples.stdout!, 'data'), ended]);
    }
    ended.catch(() => {});
    samplesUrl = /Samples on (\S+):/.exec(output)![1]!;
    gateway = await startLocalGateway(settings);
    folder = await mkdtemp(join(tmpdir(), 'readme-'));
    // curl reads this file by itself: each answer's status and type, after what it printed.
    await writeFile(join(folder, '.curlrc'), 'write-out = "\\n@@%{http_code} %{content_type}\\n"\n');
  });

  afterAll(async () => {
    await gateway?.stop();
    samples?.kill('SIGTERM');
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const local = (line: string) =>
    line
      .replaceAll('http://127.0.0.1:3000', gateway.url)
      .replaceAll('http://127.0.0.1:3001', samplesUrl)
      .replaceAll('<jobId>', jobId ?? '<jobId>');

  it('has the examples of every area', () => {
    expect(prelude.some((line) => line.startsWith('API=http://127.0.0.1:3000'))).toBe(true);
    expect(examples.length).toBeGreaterThan(35);
    expect(readme).not.toMatch(/example\.org/);
    for (const line of examples) {
      // <jobId> is the one value taken from an earlier answer, as the README says.
      const command = line.split(/ {2,}# /)[0]!.replace('<jobId>', '');
      expect(command, 'a placeholder in a command').not.toMatch(/…|<\w+>/);
    }
  });

  /** Runs one README line with the prelude, as bash would, and checks its answer as documented. */
  async function runExample(line: string) {
    const [command, ...comment] = local(line).split(/ {2,}# /);
    const script = [...prelude.map(local), command!].join('\n');
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) =>
        execFile(
          'bash',
          ['-c', script],
          { cwd: folder, env: { ...process.env, CURL_HOME: folder }, maxBuffer: 64 * 1024 * 1024 },
          (error, out, err) => resolve({ code: error ? Number(error.code) : 0, stdout: out, stderr: err }),
        ),
    );
    expect(code, `${stderr}\n${stdout}`).toBe(0);
    const [, status, type] = /@@(\d{3}) ([^\n]*)\n?$/.exec(stdout) ?? [];
    expect(Number(status)).toBeGreaterThanOrEqual(200);
    expect(Number(status)).toBeLessThan(300);
    const printed = stdout.slice(0, stdout.lastIndexOf('\n@@'));

    const saved = / -o (\S+)/.exec(command!)?.[1];
    if (saved) {
      const bytes = await readFile(join(folder, saved));
      expect(bytes.length).toBeGreaterThan(0);
      const extension = saved.split('.').pop()!;
      if (extension === 'yaml') {
        expect(type).toMatch(/^application\/yaml/);
        expect(bytes.toString('utf8')).toMatch(/^openapi: 3\.1\./m);
      } else {
        const sniffed = await fileTypeFromBuffer(bytes);
        expect(sniffed?.ext, saved).toBe(extension);
        expect(type?.split(';')[0]).toBe(sniffed?.mime === 'audio/x-m4a' ? 'audio/mp4' : sniffed?.mime);
        await expectContent(join(folder, saved), saved, extension);
      }
      return;
    }
    expect(type).toMatch(/^application\/json/);
    const answer = JSON.parse(printed) as Record<string, unknown>;
    if (typeof answer.jobId === 'string') jobId = answer.jobId;
    const shape = documentedShape(comment.join(' # ').trim());
    if (shape) expectDocumented(answer, shape);
  }

  it.each(routeExamples.map((line) => [line.split('#')[0]!.trim().slice(0, 60), line]))(
    '%s',
    async (_name, line) => {
      await runExample(line);
    },
    // The docs page is 2 MB of Swagger UI that draws a 330 kB document: on two loaded cores its
    // render takes most of a minute.
    180_000,
  );

  it('runs the async job examples in their order: the job, then its status by the id it answered', async () => {
    expect(jobExamples.length).toBeGreaterThan(1);
    jobId = undefined;
    for (const line of jobExamples) await runExample(line);
    expect(jobId).toBeDefined();
  });
});
