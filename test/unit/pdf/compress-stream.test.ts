import { deflateSync, inflateSync } from 'node:zlib';
import { PDFDocument, PDFName, type PDFRawStream } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { deflateBudget, deflateStream } from '#shared/pdf/compress-stream.ts';

/** A content stream of `lines` text operations at scattered places, as a page of a table draws them. */
function contentBytes(lines: number): Buffer {
  let seed = 11;
  const next = () => {
    seed = (seed * 48_271) % 2_147_483_647;
    return seed;
  };
  const text = Array.from(
    { length: lines },
    (_, row) =>
      `BT /F1 9 Tf ${next() % 500} ${next() % 700} Td (${(next() % 100_000).toString(36)} ${row}) Tj ET`,
  );
  return Buffer.from(text.join('\n'));
}

async function streamOf(bytes: Uint8Array, dict: Record<string, string> = {}): Promise<PDFRawStream> {
  const doc = await PDFDocument.create();
  return doc.context.stream(bytes, dict);
}

describe('deflateStream', () => {
  it('compresses a Flate stream written at a fast level again at level 9, bytes unchanged', async () => {
    const plain = contentBytes(2000);
    const fast = deflateSync(plain, { level: 1 });
    const stream = await streamOf(fast, { Filter: 'FlateDecode' });
    const budget = deflateBudget();
    const before = budget.remaining;

    const replaced = deflateStream(stream, budget);
    expect(replaced).toBeDefined();
    expect(replaced!.contents.length).toBeLessThan(fast.length * 0.95);
    expect(Buffer.compare(inflateSync(replaced!.contents), plain)).toBe(0);
    expect(replaced!.dict.get(PDFName.of('Filter'))).toBe(PDFName.FlateDecode);
    expect(budget.remaining).toBe(before - plain.length);
  });

  it("leaves a producer's level 6 alone: level 9 saves less than 5 %", async () => {
    const plain = contentBytes(2000);
    const usual = deflateSync(plain, { level: 6 });
    const best = deflateSync(plain, { level: 9 });
    expect(best.length).toBeLessThan(usual.length);
    expect(best.length).toBeGreaterThan(usual.length * 0.95);
    expect(deflateStream(await streamOf(usual, { Filter: 'FlateDecode' }), deflateBudget())).toBeUndefined();
  });

  it('still compresses unfiltered streams, and leaves XMP metadata readable', async () => {
    const plain = contentBytes(50);
    expect(deflateStream(await streamOf(plain), deflateBudget())?.contents.length).toBeLessThan(
      plain.length / 3,
    );
    expect(deflateStream(await streamOf(plain, { Type: 'Metadata' }), deflateBudget())).toBeUndefined();
  });

  it('inflates no more than the budget: a stream that would pass it is left as it is', async () => {
    const bomb = deflateSync(Buffer.alloc(4 * 1024 * 1024), { level: 1 });
    const stream = await streamOf(bomb, { Filter: 'FlateDecode' });
    const budget = { remaining: 1024 * 1024 };
    expect(deflateStream(stream, budget)).toBeUndefined();
    expect(deflateStream(stream, { remaining: 0 })).toBeUndefined();
    // Within a budget that holds it, the same stream shrinks.
    expect(deflateStream(stream, { remaining: 8 * 1024 * 1024 })).toBeDefined();
  });
});
