/** Rerank weights of DESIGN §4; every one is configurable. */
export interface RankingWeights {
  similarity: number;
  confidence: number;
  recency: number;
  /** Days for recency to fall to 1/e. */
  recencyHalfLifeDays: number;
  /** RRF constant. */
  rrfK: number;
  categoryWeights: Readonly<Record<string, number>>;
}

export const DEFAULT_RANKING: RankingWeights = {
  similarity: 0.6,
  confidence: 0.2,
  recency: 0.2,
  recencyHalfLifeDays: 30,
  rrfK: 60,
  categoryWeights: { preference: 1.2, commitment: 1.3, decision: 1.1 },
};

const DAY_MS = 86_400_000;

export function recencyWeight(occurredAt: number, now: number, scaleDays: number): number {
  const ageDays = Math.max(0, (now - occurredAt) / DAY_MS);
  return Math.exp(-ageDays / scaleDays);
}

/** Reciprocal rank fusion of ranked id lists, normalised so an item first in every list scores 1. */
export function reciprocalRankFusion(lists: ReadonlyArray<readonly string[]>, k: number): Map<string, number> {
  const fused = new Map<string, number>();
  const used = lists.filter((l) => l.length > 0);
  if (used.length === 0) return fused;
  for (const list of used) {
    list.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (k + rank + 1)));
  }
  const best = used.length / (k + 1);
  for (const [id, score] of fused) fused.set(id, score / best);
  return fused;
}

export interface RankInput {
  relevance: number;
  confidence: number;
  recency: number;
  category: string;
  decayWeight: number;
}

export function finalScore(input: RankInput, weights: RankingWeights): number {
  const base =
    weights.similarity * input.relevance + weights.confidence * input.confidence + weights.recency * input.recency;
  return base * (weights.categoryWeights[input.category] ?? 1) * input.decayWeight;
}
