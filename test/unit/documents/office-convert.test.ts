import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { convertOfficeToPdf, OfficeTimeoutError } from '#shared/documents/office-convert.ts';
import { failure } from '../../support/http-error.ts';

/**
 * The LibreOffice runner with stand-in launchers (shell scripts), so that what it is given and how
 * it ends a run are checked without starting an office suite: the real conversion is tested
 * through the gateway (test/integration/office-to-pdf.test.ts).
 */

let root = '';
let dir = '';
let count = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'office-convert-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));
beforeEach(async () => {
  count += 1;
  dir = join(root, `request-${count}`);
  await mkdir(dir);
  await writeFile(join(dir, 'source'), 'the downloaded bytes');
});

async function launcher(name: string, body: string): Promise<string> {
  const path = join(root, `${name}-${count}.sh`);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/** Records its arguments and environment, then writes the PDF where soffice would. */
const recordingLauncher = () =>
  launcher(
    'recording',
    [
      'printf "%s\\n" "$@" > "$PWD/args.txt"',
      'env > "$PWD/env.txt"',
      'out=$(printf "%s\\n" "$@" | sed -n "/^--outdir$/{n;p}")',
      'printf "%%PDF-1.7\\n" > "$out/document.pdf"',
    ].join('\n'),
  );

/** Whether a process is alive: a zombie (killed, not yet reaped by whoever adopted it) is not. */
const stillRunning = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('convertOfficeToPdf', () => {
  it('runs the launcher with a fresh locked-down profile, the input filter of the format, and returns the PDF', async () => {
    const binary = await recordingLauncher();
    const output = await convertOfficeToPdf(
      join(dir, 'source'),
      { format: 'docx' },
      { dir, timeoutMs: 10_000, binary },
    );
    expect(output).toBe(join(dir, 'out', 'document.pdf'));
    const args = (await readFile(join(dir, 'args.txt'), 'utf8')).trim().split('\n');
    expect(args).toEqual([
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--headless',
      '--invisible',
      '--nologo',
      '--nodefault',
      '--nolockcheck',
      '--norestore',
      '--infilter=MS Word 2007 XML',
      '--convert-to',
      'pdf',
      '--outdir',
      join(dir, 'out'),
      join(dir, 'document.docx'),
    ]);
    const profile = await readFile(join(dir, 'profile', 'user', 'registrymodifications.xcu'), 'utf8');
    expect(profile).toMatch(/oor:name="MacroSecurityLevel"[^>]*><value>3<\/value>/);
    expect(profile).toMatch(/oor:name="DisableMacrosExecution"[^>]*><value>true<\/value>/);
    expect(profile).toMatch(/oor:name="BlockUntrustedRefererLinks"[^>]*><value>true<\/value>/);
    expect(profile).toMatch(/Office.Writer\/Content\/Update"><prop oor:name="Link"[^>]*><value>2</);
    expect(profile).toMatch(/oor:name="ooInetHTTPSProxyName"[^>]*><value>127.0.0.1</);
  });

  it('reads a Word 6.0/95 .doc with the Word 95 filter and a Word 97 one with the Word 97 filter', async () => {
    const filterFor = async (document: { format: 'doc'; word95?: true }) => {
      await writeFile(join(dir, 'source'), 'the downloaded bytes');
      await convertOfficeToPdf(join(dir, 'source'), document, {
        dir,
        timeoutMs: 10_000,
        binary: await recordingLauncher(),
      });
      const args = (await readFile(join(dir, 'args.txt'), 'utf8')).trim().split('\n');
      expect(args.at(-1)).toBe(join(dir, 'document.doc'));
      return args.find((arg) => arg.startsWith('--infilter='));
    };
    expect(await filterFor({ format: 'doc', word95: true })).toBe('--infilter=MS Word 95');
    expect(await filterFor({ format: 'doc' })).toBe('--infilter=MS Word 97');
  });

  it('gives LibreOffice a dead proxy and none of the function’s AWS variables', async () => {
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'do-not-pass');
    vi.stubEnv('AWS_LAMBDA_RUNTIME_API', '127.0.0.1:9001');
    try {
      await convertOfficeToPdf(
        join(dir, 'source'),
        { format: 'xlsx' },
        {
          dir,
          timeoutMs: 10_000,
          binary: await recordingLauncher(),
        },
      );
    } finally {
      vi.unstubAllEnvs();
    }
    const env = await readFile(join(dir, 'env.txt'), 'utf8');
    expect(env).not.toMatch(/^AWS_/m);
    expect(env).toMatch(/^https_proxy=http:\/\/127\.0\.0\.1:9$/m);
    expect(env).toMatch(/^no_proxy=$/m);
    expect(env).toContain(`HOME=${dir}\n`);
  });

  it('answers invalid_source_file when LibreOffice writes no PDF', async () => {
    const binary = await launcher('silent', 'echo "Error: source file could not be loaded" >&2; exit 0');
    const error = await failure(
      convertOfficeToPdf(join(dir, 'source'), { format: 'rtf' }, { dir, timeoutMs: 10_000, binary }),
    );
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toBe('The rtf document could not be converted: LibreOffice could not read it.');
  });

  it('kills the whole process group at the deadline, the children LibreOffice starts included', async () => {
    // soffice is a launcher that starts soffice.bin: the stand-in starts a child and waits on it.
    const binary = await launcher('hanging', 'sleep 300 & echo $! > "$PWD/child.pid"; wait');
    const error = await convertOfficeToPdf(
      join(dir, 'source'),
      { format: 'odt' },
      { dir, timeoutMs: 1500, binary },
    ).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OfficeTimeoutError);
    const child = Number(await readFile(join(dir, 'child.pid'), 'utf8'));
    await vi.waitFor(() => expect(stillRunning(child)).toBe(false), { timeout: 5000 });
  });

  it('kills the process group when the request is aborted', async () => {
    const binary = await launcher('hanging', 'sleep 300 & echo $! > "$PWD/child.pid"; wait');
    const controller = new AbortController();
    const run = convertOfficeToPdf(
      join(dir, 'source'),
      { format: 'pptx' },
      {
        dir,
        timeoutMs: 60_000,
        binary,
        signal: controller.signal,
      },
    );
    await vi.waitFor(() => readFile(join(dir, 'child.pid'), 'utf8'), { timeout: 5000 });
    controller.abort(new Error('caller left'));
    await expect(run).rejects.toThrow('caller left');
    const child = Number(await readFile(join(dir, 'child.pid'), 'utf8'));
    await vi.waitFor(() => expect(stillRunning(child)).toBe(false), { timeout: 5000 });
  });
});
