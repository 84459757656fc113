import { describe, expect, it } from 'vitest';
import { browserArgs, browserEnv } from '#shared/documents/browser-launch.ts';
import { pageSizePoints, pdfOptions } from '#shared/documents/browser-print.ts';
import { markdownToHtml } from '#shared/documents/markdown.ts';
import {
  htmlToPdfBody,
  markdownToPdfBody,
  maxInlineBytes,
  urlToPdfBody,
  webScreenshotBody,
} from '#shared/documents/schemas.ts';

describe('the browser process', () => {
  it('gets none of the function’s AWS variables, only what Chromium needs', () => {
    const env = browserEnv({
      PATH: '/usr/bin',
      HOME: '/tmp',
      AWS_ACCESS_KEY_ID: 'AKIA…',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'token',
      AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001',
      _X_AMZN_TRACE_ID: 'Root=1-…',
      JOBS_BUCKET: 'jobs',
      WEBHOOK_SECRET: 'a-webhook-secret-of-sixteen',
      FONTCONFIG_PATH: '/tmp/fonts',
    });
    expect(Object.keys(env)).not.toContain('JOBS_BUCKET');
    expect(Object.keys(env).filter((name) => /AWS|AMZN|SECRET/.test(name))).toEqual([]);
    expect(env).toMatchObject({ PATH: '/usr/bin', HOME: '/tmp', FONTCONFIG_PATH: '/tmp/fonts' });
  });

  it('keeps web security on and sends what interception misses to the dead proxy, loopback included', () => {
    const args = browserArgs(4321);
    expect(args).toContain('--proxy-server=http://127.0.0.1:4321');
    expect(args).toContain('--proxy-bypass-list=<-loopback>');
    for (const refused of ['--disable-web-security', '--allow-running-insecure-content', '--single-process'])
      expect(args).not.toContain(refused);
  });
});

describe('page options', () => {
  const defaults = { pageSize: 'a4', landscape: false, margin: 36, printBackground: true, scale: 1 } as const;

  it('turns named and custom sizes for landscape, and gives them in whole pixels', () => {
    expect(pageSizePoints({ pageSize: 'letter', landscape: true })).toEqual({ width: 792, height: 612 });
    expect(pageSizePoints({ pageSize: { width: 300, height: 400 }, landscape: false })).toEqual({
      width: 300,
      height: 400,
    });
    expect(pdfOptions({ ...defaults, pageSize: { width: 300, height: 400 } })).toMatchObject({
      width: '400px',
      height: '533px',
      margin: { top: '48px', left: '48px' },
      preferCSSPageSize: false,
    });
  });

  it('refuses a margin that leaves less than half an inch of the page', () => {
    expect(() => pdfOptions({ ...defaults, pageSize: { width: 144, height: 144 }, margin: 54 })).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(() =>
      pdfOptions({ ...defaults, pageSize: { width: 144, height: 144 }, margin: 50 }),
    ).not.toThrow();
  });
});

describe('request schemas', () => {
  it('take exactly one of the page fields', () => {
    expect(htmlToPdfBody.safeParse({ html: '<p>x</p>' }).success).toBe(true);
    expect(htmlToPdfBody.safeParse({}).success).toBe(false);
    expect(htmlToPdfBody.safeParse({ html: '<p>x</p>', sourceUrl: 'https://example.com/' }).success).toBe(
      false,
    );
    expect(markdownToPdfBody.safeParse({ markdown: '# x', javascript: true }).success).toBe(false);
    expect(webScreenshotBody.safeParse({ url: 'https://example.com/', html: '<p>x</p>' }).success).toBe(
      false,
    );
  });

  it('apply the contract’s defaults and bounds', () => {
    expect(urlToPdfBody.parse({ url: 'https://example.com/' })).toMatchObject({
      pageSize: 'a4',
      landscape: false,
      margin: 36,
      printBackground: true,
      scale: 1,
      javascript: false,
      waitFor: 'load',
    });
    expect(webScreenshotBody.parse({ html: '<p>x</p>' })).toMatchObject({
      outputFormat: 'png',
      width: 1280,
      height: 800,
      fullPage: false,
    });
    expect(urlToPdfBody.safeParse({ url: 'https://example.com/', scale: 2.5 }).success).toBe(false);
    expect(webScreenshotBody.safeParse({ html: 'x', width: 319 }).success).toBe(false);
    expect(webScreenshotBody.safeParse({ html: 'x', height: 2161 }).success).toBe(false);
  });

  it('count the 1 MiB of html in UTF-8 bytes', () => {
    const ascii = 'a'.repeat(maxInlineBytes);
    expect(htmlToPdfBody.safeParse({ html: ascii }).success).toBe(true);
    const wide = 'é'.repeat(maxInlineBytes / 2 + 1);
    expect(htmlToPdfBody.safeParse({ html: wide }).success).toBe(false);
  });
});

describe('Markdown', () => {
  it('renders CommonMark tables and escapes raw HTML', () => {
    const html = markdownToHtml(
      '| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script> <img src=x onerror=y>\n',
    );
    expect(html).toContain('<table>');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<img/);
  });

  it('refuses a table wider than 100 columns, before parsing it, CRLF lines included', () => {
    const table = (columns: number, end = '\n') =>
      `${'| h '.repeat(columns)}|${end}${'|---'.repeat(columns)}|${end}${'| c '.repeat(columns)}|${end}`;
    expect(markdownToHtml(table(100))).toContain('<table>');
    expect(() => markdownToHtml(table(101))).toThrow(/101 columns; a table may have at most 100/);
    expect(() => markdownToHtml(table(101, '\r\n'))).toThrow(/at most 100/);
    expect(markdownToHtml('---\n\n- - -\n')).toMatch(/<hr\b/);
  });
});

describe('browser flags', () => {
  it('hold WebRTC to the proxy, which is dead', () => {
    expect(browserArgs(9)).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
  });
});
