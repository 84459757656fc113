import { describe, expect, it } from 'vitest';
import { estimatedSecondsPerPage, maxOcrPixels, ocrAnswerReserveSeconds } from '#shared/ocr/limits.ts';
import { checkLanguagesOffered, checkPageLimit, checkTime } from '#shared/ocr/ocr.ts';
import { fittingScale, renderDpi } from '#shared/ocr/page-images.ts';
import { parseLanguageList, parseTesseractVersion, runTesseract } from '#shared/ocr/tesseract.ts';
import { meanConfidence, pageText, wordsOf } from '#shared/ocr/tsv.ts';

const tsv = [
  'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
  '1\t1\t0\t0\t0\t0\t0\t0\t2480\t520\t-1\t',
  '4\t1\t1\t1\t1\t0\t150\t152\t2170\t51\t-1\t',
  '5\t1\t1\t1\t1\t1\t150\t152\t85\t40\t96.5\tThe',
  '5\t1\t1\t1\t1\t2\t250\t152\t120\t40\t91.5\tquick',
  '5\t1\t1\t1\t1\t3\t380\t152\t10\t40\t95\t ',
].join('\n');

describe('reading Tesseract’s TSV and text', () => {
  it('takes the word rows with their boxes and confidences, leaving out blank words and other levels', () => {
    expect(wordsOf(tsv)).toEqual([
      { text: 'The', confidence: 96.5, left: 150, top: 152, width: 85, height: 40 },
      { text: 'quick', confidence: 91.5, left: 250, top: 152, width: 120, height: 40 },
    ]);
  });

  it('averages the word confidences to one decimal, 0 for a page without words', () => {
    expect(meanConfidence(wordsOf(tsv))).toBe(94);
    expect(meanConfidence([])).toBe(0);
  });

  it('tidies a page’s text: no form feed, trailing spaces or runs of empty lines', () => {
    expect(pageText('\n\nFirst line  \nsecond\n\n\n\nNext paragraph\n\f')).toBe(
      'First line\nsecond\n\nNext paragraph',
    );
  });

  it('reads the version and the language list tesseract prints', () => {
    expect(parseTesseractVersion('tesseract 5.3.0\n leptonica-1.82.0\n')).toBe('5.3.0');
    expect(parseTesseractVersion('something else')).toBeNull();
    expect(
      parseLanguageList(
        'List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (3):\ndeu\neng\nosd\n',
      ),
    ).toEqual(['deu', 'eng', 'osd']);
  });

  it('stops a run at its time limit', async () => {
    const command = { file: '/bin/sleep', prefix: [], tessdata: undefined };
    const run = await runTesseract(['30'], 200, undefined, command);
    expect(run).toMatchObject({ timedOut: true, code: null });
  });
});

describe('checks made before the work', () => {
  it('refuses languages not offered, naming each by its place and listing those offered', () => {
    expect(() => checkLanguagesOffered(['eng', 'deu'], ['eng', 'deu'])).not.toThrow();
    expect(() => checkLanguagesOffered(['eng', 'klingon', 'xyz'], ['eng', 'deu'])).toThrow(
      'languages.1: "klingon" is not offered; languages.2: "xyz" is not offered. Offered: eng, deu.',
    );
  });

  it("refuses more pages than the caller's tier reads, naming the tier that reads them", () => {
    expect(() => checkPageLimit(5, 'free')).not.toThrow();
    expect(() => checkPageLimit(6, 'free')).toThrow(
      /6 pages are more than the 5 .* free tier reads\. The pro tier reads up to 50\./,
    );
    expect(() => checkPageLimit(51, 'pro')).toThrow(/The enterprise tier reads up to 200\./);
    expect(() => checkPageLimit(201, 'enterprise')).toThrow(/No tier reads that many/);
  });

  it('refuses, before reading, pages that would not be read in the time left, naming how many fit', () => {
    const now = 1_000_000;
    const seconds = ocrAnswerReserveSeconds + 10 * estimatedSecondsPerPage;
    expect(() => checkTime(10, now + seconds * 1000, now)).not.toThrow();
    expect(() => checkTime(11, now + seconds * 1000, now)).toThrow(/; 10 pages fit\. Send fewer pages/);
    expect(() => checkTime(1, now + 1000, now)).toThrow(/no page fits/);
    expect(() => checkTime(500, undefined, now)).not.toThrow();
  });

  it('renders PDF pages at 300 dpi, or at the dpi that keeps them within the pixel bound', () => {
    expect(renderDpi({ width: 595, height: 842 })).toBe(300);
    // An A0 poster, and a page a million points square (pdfium renders what it is asked to).
    for (const page of [
      { width: 2384, height: 3370 },
      { width: 1_000_000, height: 1_000_000 },
    ]) {
      const dpi = renderDpi(page);
      expect(dpi).toBeLessThan(300);
      expect(dpi).toBeGreaterThan(0);
      const pixels = Math.ceil((page.width * dpi) / 72) * Math.ceil((page.height * dpi) / 72);
      expect(pixels).toBeLessThanOrEqual(maxOcrPixels);
      expect(pixels).toBeGreaterThan(maxOcrPixels * 0.9);
    }
    expect(fittingScale(maxOcrPixels)).toBe(1);
    expect(fittingScale(maxOcrPixels * 4)).toBeCloseTo(0.5);
  });
});
