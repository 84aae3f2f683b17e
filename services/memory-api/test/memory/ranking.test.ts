import { describe, expect, it } from 'vitest';
import { fitToBudget, renderContext } from '../../src/memory/context.ts';
import { DEFAULT_RANKING, denseRelevance, finalScore, fuseRelevance, recencyWeight } from '../../src/memory/ranking.ts';

describe('ranking', () => {
  it('scores dense evidence above the query background: unrelated 0, identical 1, whatever the embedder', () => {
    const hashed = { mean: 0.01, deviation: 0.03 };
    const averaged = { mean: 0.45, deviation: 0.08 };
    const weights = { backgroundSigmas: 1 };
    expect(denseRelevance(0.02, hashed, weights)).toBe(0);
    expect(denseRelevance(0.5, averaged, weights)).toBe(0);
    expect(denseRelevance(1, hashed, weights)).toBeCloseTo(1);
    expect(denseRelevance(1, averaged, weights)).toBeCloseTo(1);
    expect(denseRelevance(0.75, averaged, weights)).toBeGreaterThan(denseRelevance(0.6, averaged, weights));
  });

  it('fuses dense and keyword relevance so neither drags the other down', () => {
    const weights = { denseWeight: 1, keywordWeight: 1, agreement: 0.5, keywordDominance: 0.5 };
    // A paraphrase without a shared word keeps its dense relevance, a keyword match its keyword one.
    expect(fuseRelevance(0.6, 0, weights)).toBeCloseTo(0.6);
    expect(fuseRelevance(0, 0.7, weights)).toBeCloseTo(0.7);
    expect(fuseRelevance(0.6, 0.7, weights)).toBeCloseTo(1);
    expect(fuseRelevance(0, 0, weights)).toBe(0);
    // When the query's words are found elsewhere, a dense-only candidate ranks below them.
    expect(fuseRelevance(0.6, 0, weights, 0.8)).toBeCloseTo(0.6 * 0.6);
  });

  it('decays recency over 30 days and adjusts relevance modestly, never above it', () => {
    const now = Date.parse('2025-03-31T00:00:00Z');
    expect(recencyWeight(now, now, 30)).toBe(1);
    expect(recencyWeight(now - 30 * 86_400_000, now, 30)).toBeCloseTo(Math.exp(-1));
    const fresh = { confidence: 1, recency: 1, decayWeight: 1 };
    expect(finalScore(0.5, { ...fresh, category: 'fact' }, DEFAULT_RANKING)).toBeCloseTo(0.5);
    const old = { confidence: 0.5, recency: 0, decayWeight: 1, category: 'fact' };
    expect(finalScore(0.5, old, DEFAULT_RANKING)).toBeCloseTo(0.5 * 0.85);
    // A category weight lifts an adjusted score back, but not past the relevance.
    expect(finalScore(0.5, { ...old, category: 'commitment' }, DEFAULT_RANKING)).toBeCloseTo(0.5);
    expect(finalScore(0.5, { ...fresh, category: 'fact', decayWeight: 0.2 }, DEFAULT_RANKING)).toBeCloseTo(0.1);
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
