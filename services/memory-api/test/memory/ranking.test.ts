import { describe, expect, it } from 'vitest';
import { fitToBudget, renderContext } from '../../src/memory/context.ts';
import { DEFAULT_RANKING, finalScore, recencyWeight, reciprocalRankFusion } from '../../src/memory/ranking.ts';

describe('ranking', () => {
  it('fuses ranked lists so agreement wins and a first place in every list scores 1', () => {
    const fused = reciprocalRankFusion(
      [
        ['a', 'b', 'c'],
        ['a', 'c'],
      ],
      60,
    );
    expect(fused.get('a')).toBeCloseTo(1);
    expect(fused.get('c') as number).toBeGreaterThan(fused.get('b') as number);
  });

  it('decays recency over 30 days and weights categories', () => {
    const now = Date.parse('2025-03-31T00:00:00Z');
    expect(recencyWeight(now, now, 30)).toBe(1);
    expect(recencyWeight(now - 30 * 86_400_000, now, 30)).toBeCloseTo(Math.exp(-1));
    const base = { relevance: 0.5, confidence: 0.5, recency: 0.5, decayWeight: 1 };
    expect(finalScore({ ...base, category: 'commitment' }, DEFAULT_RANKING)).toBeCloseTo(0.5 * 1.3);
    expect(finalScore({ ...base, category: 'fact' }, DEFAULT_RANKING)).toBeCloseTo(0.5);
    expect(finalScore({ ...base, category: 'fact', decayWeight: 0.2 }, DEFAULT_RANKING)).toBeCloseTo(0.1);
  });

  it('fits lines into the token budget best-first and renders newest first within a conflict', () => {
    const items = [
      {
        id: 'old',
        content: 'likes coffee',
        category: 'preference',
        occurredAt: '2024-01-01T00:00:00Z',
        supersededBy: 'new',
      },
      {
        id: 'new',
        content: 'quit coffee',
        category: 'preference',
        occurredAt: '2024-06-01T00:00:00Z',
        supersededBy: null,
      },
    ];
    expect(renderContext(items).split('\n')).toEqual([
      '[2024-06-01] preference: quit coffee',
      '[2024-01-01] preference (superseded): likes coffee',
    ]);
    const { kept, truncated } = fitToBudget([items[1], items[0]] as typeof items, 12);
    expect(kept).toHaveLength(1);
    expect(truncated).toBe(true);
  });
});
