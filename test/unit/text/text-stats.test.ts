import { describe, expect, it } from 'vitest';
import { textStats } from '#shared/text/text-stats.ts';

describe('textStats', () => {
  it('counts a two-paragraph text', () => {
    expect(textStats('Hello world. This is a test.\n\nSecond paragraph here!\n')).toEqual({
      characters: 53,
      charactersNoSpaces: 43,
      words: 9,
      sentences: 3,
      lines: 3,
      paragraphs: 2,
      readingTimeSeconds: 3,
    });
  });

  it('answers zeros for empty text', () => {
    expect(textStats('')).toEqual({
      characters: 0,
      charactersNoSpaces: 0,
      words: 0,
      sentences: 0,
      lines: 0,
      paragraphs: 0,
      readingTimeSeconds: 0,
    });
  });

  it('counts what a reader sees as one character once', () => {
    const family = '👨‍👩‍👧‍👦'; // 7 code points, 11 UTF-16 units
    const stats = textStats(`${family} e\u0301 🇩🇪`);
    expect(stats.characters).toBe(5);
    expect(stats.charactersNoSpaces).toBe(3);
  });

  it('segments words of scripts written without spaces', () => {
    expect(textStats('我喜欢学习中文。').words).toBeGreaterThanOrEqual(3);
    // "Don’t" and "e.g" are single words under Unicode rules.
    expect(textStats('Don’t stop—keep going, e.g. now.').words).toBe(6);
  });

  it('reads lines and paragraphs across line-break styles', () => {
    const stats = textStats('one\r\ntwo\r\n   \r\nthree\rfour\n\n\nfive');
    expect(stats.lines).toBe(8);
    expect(stats.paragraphs).toBe(3);
  });

  it('rounds the reading time up at 200 words per minute', () => {
    expect(textStats('word '.repeat(200)).readingTimeSeconds).toBe(60);
    expect(textStats('word '.repeat(201)).readingTimeSeconds).toBe(61);
    expect(textStats('word').readingTimeSeconds).toBe(1);
  });
});
