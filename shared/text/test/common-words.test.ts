import { describe, expect, it } from 'vitest';
import { analyzeText, termCommonness } from '../src/index.ts';

const commonness = (word: string) => termCommonness(analyzeText(word)[0]?.term ?? word);

describe('termCommonness', () => {
  it('is high for everyday words, falls with their rank and is 0 for rare words, numbers and Chinese', () => {
    expect(commonness('work')).toBeGreaterThan(0.95);
    expect(commonness('living')).toBeGreaterThan(0.2);
    expect(commonness('living')).toBeLessThan(commonness('old'));
    expect(commonness('husband')).toBeLessThan(commonness('living'));
    for (const rare of ['cello', 'pharmacist', 'penicillin', '2015', '老公']) expect(commonness(rare)).toBe(0);
  });

  it('knows inflected forms by their stem', () => {
    expect(commonness('works')).toBe(commonness('work'));
    expect(commonness('taking')).toBeGreaterThan(0.5);
  });
});
