/**
 * Relevance of a memory to a query, from the evidence itself (DESIGN §4): the cosine similarity of
 * the dense candidates and the normalised BM25 of the keyword candidates, fused so that neither
 * drags the other down, then adjusted modestly by confidence, recency, category and decay. The
 * score is a relevance in 0..1 that reads the same across queries, so a floor (`min_score`) can
 * tell "nothing relevant" from a weak match. Every weight is configurable (config.ts).
 */
export interface RankingWeights {
  /** How much dense and keyword relevance count (each 0..1) before they are fused. */
  denseWeight: number;
  keywordWeight: number;
  /**
   * Dense weight of a conversation turn, times `denseWeight`: word-vector similarity tells less
   * about which turn of a dialogue answers a question than about which fact does (REALTALK R@10
   * 55.4 → 56.2 at 0.5 with the built-in embedder), so there the words decide more.
   */
  turnDenseWeight: number;
  /** Bonus for agreement: the weaker of the two evidences adds this share of itself. */
  agreement: number;
  /**
   * How much a strong keyword match elsewhere in the candidates discounts dense-only evidence:
   * dense × (1 − this × best keyword relevance). When the query's words are found (dialogue turns,
   * names, rare words) word-vector similarity ranks below them; when they are not (a paraphrase),
   * dense evidence decides alone.
   */
  keywordDominance: number;
  /**
   * Dense relevance counts similarity above the query's background — the similarity the query has
   * with unrelated text (mean + this many standard deviations over a fixed set of everyday
   * sentences) — so an embedder whose unrelated texts sit at 0.4 and one whose sit at 0 both give
   * 0 for "unrelated" and 1 for "identical".
   */
  backgroundSigmas: number;
  /**
   * Weight of the word alignment of a fact with the query against its cosine (word-alignment.ts):
   * similarity = (cosine + w · alignment) / (1 + w); 0 leaves the cosine alone.
   */
  wordAlignment: number;
  /**
   * A question about a relative ("what does my dad do?", relations.ts): a fact about that relative
   * counts this share more (a quarter of it for one that only names them), one about another relative
   * only this share less.
   */
  relationAbout: number;
  relationOther: number;
  /** A question that names no relative asks about the user: a fact about a relative counts this share less. */
  relationOwner: number;
  /**
   * A question asking for a kind of answer facts state in words of their own (asked-kinds.ts: what
   * someone does for a living, unpaid work): a fact stating it, however the job or the cause is
   * named, has at least this relevance before the relation weight.
   */
  askedKindMatch: number;
  /** Shares of the adjustment: score = relevance × ((1 − c − r) + c·confidence + r·recency) × category × decay. */
  confidence: number;
  recency: number;
  /** Days for recency to fall to 1/e. */
  recencyHalfLifeDays: number;
  /** Category multipliers of the adjustment (the score never exceeds the relevance). */
  categoryWeights: Readonly<Record<string, number>>;
}

export const DEFAULT_RANKING: RankingWeights = {
  denseWeight: 1,
  keywordWeight: 1,
  turnDenseWeight: 0.5,
  agreement: 0.5,
  keywordDominance: 0.8,
  backgroundSigmas: 0.75,
  wordAlignment: 1,
  relationAbout: 0.6,
  relationOther: 0.35,
  relationOwner: 0.2,
  askedKindMatch: 0.3,
  confidence: 0.1,
  recency: 0.1,
  recencyHalfLifeDays: 30,
  categoryWeights: { preference: 1.2, commitment: 1.3, decision: 1.1 },
};

const DAY_MS = 86_400_000;

export function recencyWeight(occurredAt: number, now: number, scaleDays: number): number {
  const ageDays = Math.max(0, (now - occurredAt) / DAY_MS);
  return Math.exp(-ageDays / scaleDays);
}

/** The similarity an unrelated text reaches for this query. */
export interface SimilarityBackground {
  mean: number;
  deviation: number;
}

/** Deviations below this are treated as this (a query sharing nothing with any background text). */
const MIN_DEVIATION = 0.02;

/** Cosine similarity above the query's background, rescaled so that identical text scores 1. */
export function denseRelevance(
  similarity: number,
  background: SimilarityBackground,
  weights: Pick<RankingWeights, 'backgroundSigmas'>,
): number {
  const floor = Math.min(
    0.95,
    background.mean + weights.backgroundSigmas * Math.max(background.deviation, MIN_DEVIATION),
  );
  return clamp01((similarity - floor) / (1 - floor));
}

/**
 * Dense and keyword relevance fused: the stronger decides, agreement adds a little. `bestKeyword`
 * is the best keyword relevance among the query's candidates (see `keywordDominance`).
 */
export function fuseRelevance(
  dense: number,
  keyword: number,
  weights: Pick<RankingWeights, 'denseWeight' | 'keywordWeight' | 'agreement' | 'keywordDominance'>,
  bestKeyword = 0,
): number {
  const d = clamp01(dense) * weights.denseWeight * (1 - weights.keywordDominance * clamp01(bestKeyword));
  const k = clamp01(keyword) * weights.keywordWeight;
  return clamp01(Math.max(d, k) + weights.agreement * Math.min(d, k));
}

export interface Adjustment {
  confidence: number;
  recency: number;
  category: string;
  decayWeight: number;
}

/** The final score: relevance, demoted a little for low confidence, age, category and decay. */
export function finalScore(relevance: number, adjustment: Adjustment, weights: RankingWeights): number {
  const { confidence: c, recency: r } = weights;
  const base = 1 - c - r + c * adjustment.confidence + r * adjustment.recency;
  const factor = clamp01(base * (weights.categoryWeights[adjustment.category] ?? 1) * adjustment.decayWeight);
  return relevance * factor;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
