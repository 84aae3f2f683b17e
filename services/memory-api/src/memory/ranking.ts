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
  /** Weight of each candidate list in the fusion (weighted RRF); equal when absent. */
  sourceWeights?: SourceWeights;
}

export interface SourceWeights {
  dense: number;
  keyword: number;
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

/**
 * Reciprocal rank fusion of ranked id lists, normalised so an item first in every list scores 1.
 * `weights[i]` scales list i (weighted RRF); lists without a weight count 1.
 */
export function reciprocalRankFusion(
  lists: ReadonlyArray<readonly string[]>,
  k: number,
  weights: readonly number[] = [],
): Map<string, number> {
  const fused = new Map<string, number>();
  const used = lists
    .map((list, i) => ({ list, weight: weights[i] ?? 1 }))
    .filter((l) => l.list.length > 0 && l.weight > 0);
  if (used.length === 0) return fused;
  for (const { list, weight } of used) {
    list.forEach((id, rank) => {
      fused.set(id, (fused.get(id) ?? 0) + weight / (k + rank + 1));
    });
  }
  const best = used.reduce((sum, l) => sum + l.weight, 0) / (k + 1);
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

/**
 * Fusion weights. The built-in embedder hashes words, character n-grams and a small thesaurus: its
 * ranking is a noisier copy of BM25's, and fused with equal weight it pulls BM25 down (REALTALK via
 * scripts/eval, recall@10: plain BM25 49.6; hindsight with equal RRF 42.7, keyword ×8 49.2,
 * keyword ×1000 49.8). So with it the keyword order decides and the dense list ranks what shares no
 * word with the query (paraphrases, other scripts); a real embedding model gets equal weights. An
 * explicit RANK_KEYWORD_WEIGHT always wins.
 */
export const BUILTIN_KEYWORD_WEIGHT = 1000;

export function sourceWeightsFor(embedderModel: string, dense: number, keyword: number | undefined): SourceWeights {
  return { dense, keyword: keyword ?? (embedderModel.startsWith('builtin') ? BUILTIN_KEYWORD_WEIGHT : 1) };
}
