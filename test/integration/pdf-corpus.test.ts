import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfiumReads } from '#shared/pdf/pdfium.ts';
import { type CorpusPdf, pdfCorpus, pdfCorpusLarge } from '../corpus/pdf.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * The differential PDF corpus (test/corpus/pdf.ts) through the local gateway over real HTTP. For
 * each file the reference readers are asked first: poppler's pdfinfo and pdfium itself. When both
 * read it, every PDF route succeeds and its output decodes (pdfinfo reads the PDFs, sharp the
 * images); when neither does, each answers a 4xx with the contract's code; when they disagree,
 * a 2xx or such a 4xx. No answer is ever a 5xx, with 8 requests in flight at once (4× the cores
 * of the machine the tests are sized for). PDF_CORPUS=large runs every file in more variants.
 */

const run = promisify(execFile);
const inFlight = 8;
const refusalCodes = ['invalid_source_file', 'unsupported_input_format', 'encrypted_pdf'];

const sources = new FixtureServer();
let gateway: RunningGateway;
let folder: string;
let corpus: CorpusPdf[] = [];

async function pdfinfoReads(bytes: Uint8Array, name: string): Promise<boolean> {
  const path = join(folder, `${name}.pdf`);
  await writeFile(path, bytes);
  try {
    await run('pdfinfo', [path]);
    return true;
  } catch {
    return false;
  }
}

type Verdict = 'reads' | 'refuses' | 'contested';

async function referenceVerdict(entry: CorpusPdf, index: number): Promise<Verdict> {
  const [poppler, pdfium] = [
    await pdfinfoReads(entry.bytes, `source-${index}`),
    await pdfiumReads(entry.bytes),
  ];
  if (poppler && pdfium) return 'reads';
  return !poppler && !pdfium ? 'refuses' : 'contested';
}

interface Call {
  file: number;
  route: string;
  body: Record<string, unknown>;
  /** Checks a 200 answer's body decodes; throws when it does not. */
  decodes: (body: Buffer, index: number) => Promise<void>;
}

const pdfDecodes = async (body: Buffer, index: number) => {
  if (!(await pdfinfoReads(body, `output-${index}`))) throw new Error('pdfinfo cannot read the output');
};

function callsFor(file: number, url: string): Call[] {
  return [
    {
      file,
      route: '/pdf-info',
      body: { sourceUrl: url },
      decodes: async (body) => {
        const info = JSON.parse(body.toString()) as { pages: number };
        if (!(info.pages >= 1)) throw new Error(`pdf-info reports ${info.pages} pages`);
      },
    },
    {
      file,
      route: '/pdf-to-image',
      body: { sourceUrl: url, pages: '1', dpi: 36 },
      decodes: async (body) => {
        const meta = await sharp(body).metadata();
        if (meta.format !== 'png' || !meta.width) throw new Error('the page image does not decode');
      },
    },
    { file, route: '/pdf-split', body: { sourceUrl: url, ranges: '1' }, decodes: pdfDecodes },
    { file, route: '/pdf-compress', body: { sourceUrl: url }, decodes: pdfDecodes },
  ];
}

interface Outcome {
  call: Call;
  status: number;
  code?: string;
  failure?: string;
}

async function perform(call: Call, index: number): Promise<Outcome> {
  const response = await postJson(`${gateway.url}${call.route}`, call.body, {
    'x-api-key': SHARED_KEYS.enterprise,
  });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) {
    const code = (() => {
      try {
        return (JSON.parse(body.toString()) as { error?: string }).error;
      } catch {
        return undefined;
      }
    })();
    return { call, status: response.status, code };
  }
  try {
    await call.decodes(body, index);
    return { call, status: 200 };
  } catch (error) {
    return { call, status: 200, failure: String(error) };
  }
}

/** Runs every call, `inFlight` at a time. */
async function performAll(calls: Call[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next;
      next += 1;
      outcomes[index] = await perform(calls[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return outcomes;
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'pdf-corpus-'));
  corpus = process.env.PDF_CORPUS === 'large' ? await pdfCorpusLarge() : await pdfCorpus();
  await sources.start();
  gateway = sharedGateway();
});

afterAll(async () => {
  await gateway?.stop();
  await sources.stop();
  await rm(folder, { recursive: true, force: true });
});

describe('the differential PDF corpus', () => {
  it('answers as the reference readers read each file, never 5xx, 8 requests at a time', async () => {
    const verdicts = await Promise.all(corpus.map((entry, index) => referenceVerdict(entry, index)));
    const calls = corpus.flatMap((entry, index) =>
      callsFor(index, sources.serve(`/corpus/${index}.pdf`, entry.bytes)),
    );
    // Each route's worker processes are started first: a cold start on a busy machine may take
    // longer than a JSON route's timeout, which would say nothing about the files.
    const control = calls.filter((call) => call.file === 0);
    for (const call of control) await Promise.all([perform(call, -1), perform(call, -2)]);
    const outcomes = await performAll(calls);

    const breaches = outcomes.flatMap(({ call, status, code, failure }) => {
      const verdict = verdicts[call.file]!;
      const what = `${corpus[call.file]!.name} (reference: ${verdict}) ${call.route}: ${status} ${code ?? ''}`;
      const refusedProperly = status >= 400 && status < 500 && refusalCodes.includes(code ?? '');
      if (status >= 500) return [`${what}: a 5xx`];
      if (failure) return [`${what}: ${failure}`];
      if (verdict === 'reads' && status !== 200) return [`${what}: the references read it`];
      if (verdict === 'refuses' && !refusedProperly) return [`${what}: the references refuse it`];
      if (verdict === 'contested' && status !== 200 && !refusedProperly)
        return [`${what}: not a contract refusal`];
      return [];
    });
    expect(breaches).toEqual([]);
    // The corpus is built so that both kinds are there: a corpus the references all read proves little.
    expect(verdicts.filter((verdict) => verdict === 'reads').length).toBeGreaterThan(10);
    expect(verdicts).toContain('refuses');
    expect((await fetch(`${gateway.url}/status`)).status).toBe(200);
  }, 600_000);
});
