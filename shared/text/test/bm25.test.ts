import { describe, expect, it } from 'vitest';
import { bm25Score, bm25Weights, termFrequencies } from '../src/index.ts';

describe('bm25', () => {
  it('weighs rare terms above common ones and never below zero', () => {
    const df = new Map([
      ['peanut', 1],
      ['user', 9],
    ]);
    const weights = bm25Weights(['peanut', 'user', 'absent'], 10, (term) => df.get(term) ?? 0);
    expect(weights.get('peanut')).toBeCloseTo(Math.log(1 + 9.5 / 1.5), 12);
    expect(weights.get('user')).toBeGreaterThan(0);
    expect(weights.get('user')).toBeLessThan(weights.get('peanut') as number);
    expect(weights.get('absent')).toBeCloseTo(Math.log(1 + 10.5 / 0.5), 12);
  });

  it('scores the Okapi formula: saturating term frequency, normalised by length', () => {
    const weights = new Map([['tea', 2]]);
    // tf 1, length = average: 2 * (1 * 2.2) / (1 + 1.2) = 2
    expect(bm25Score(weights, termFrequencies(['tea', 'cup']), 2, 2)).toBeCloseTo(2, 12);
    // tf 2 scores more, but less than twice as much
    const twice = bm25Score(weights, termFrequencies(['tea', 'tea']), 2, 2);
    expect(twice).toBeGreaterThan(2);
    expect(twice).toBeLessThan(4);
    // a longer document with the same tf scores less
    expect(bm25Score(weights, termFrequencies(['tea', 'a', 'b', 'c']), 4, 2)).toBeLessThan(2);
    expect(bm25Score(weights, termFrequencies(['coffee']), 1, 2)).toBe(0);
  });

  it('counts only the kept terms when asked', () => {
    expect([...termFrequencies(['a', 'b', 'a'], new Map([['a', 1]]))]).toEqual([['a', 2]]);
  });
});
