import { describe, expect, it } from 'vitest';
import { discardPdfiumAfter, loadPdfium } from '#shared/pdf/pdfium.ts';

describe('the pdfium engine', () => {
  it('is instantiated once per container and shared', async () => {
    const first = await loadPdfium();
    expect((await loadPdfium()) === first).toBe(true);
    discardPdfiumAfter(new Error('Password required or incorrect password'));
    expect((await loadPdfium()) === first).toBe(true);
  });

  it('is replaced after a WebAssembly trap', async () => {
    const before = await loadPdfium();
    discardPdfiumAfter(new WebAssembly.RuntimeError('unreachable'));
    const after = await loadPdfium();
    // Identity only: a deep comparison would walk the WebAssembly memory.
    expect(after === before).toBe(false);
    const doc = await after.loadDocument(
      Buffer.from(
        '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF',
      ),
    );
    expect(doc.getPageCount()).toBe(1);
    doc.destroy();
  });
});
