import type { SearchHit } from '@hindsight/memory-model';
import {
  denseRelevance,
  finalScore,
  fuseRelevance,
  type RankingWeights,
  recencyWeight,
  type SimilarityBackground,
} from './ranking.ts';

/** A scored hit with what the rest of the read path needs: its successor (redundancy) and its relevance (ties). */
export type Ranked = SearchHit & { supersededBy: string | null; relevance: number };

/** The evidence one candidate brings, stored memory or working memory alike. */
export interface HitEvidence {
  similarity: number;
  keyword: number;
  confidence: number;
  decayWeight: number;
  /** A conversation turn (its own dense weight) and its dialogue focus; neither for working memory. */
  turn?: { focus: number };
}

/** What is the same for every candidate of one search. */
export interface QueryEvidence {
  now: number;
  ranking: RankingWeights;
  /** False when the search runs on keywords alone (no query vector): similarity then counts for nothing. */
  dense: boolean;
  background: SimilarityBackground;
  /** The best keyword score among the candidates (keyword relevance is relative to it). */
  bestKeyword: number;
}

/**
 * One candidate's score: relevance from its similarity above the query's background and its
 * keyword score, fused (and weighed by dialogue focus for a turn), then adjusted by confidence,
 * recency, category and decay; the parts are reported in `scores`.
 */
export function scoreHit(
  hit: Omit<SearchHit, 'score' | 'scores'>,
  evidence: HitEvidence,
  query: QueryEvidence,
): Omit<Ranked, 'supersededBy'> {
  const { ranking } = query;
  const recency = recencyWeight(Date.parse(hit.occurred_at), query.now, ranking.recencyHalfLifeDays);
  const similarityShare = evidence.turn ? ranking.turnDenseWeight : 1;
  const dense = query.dense ? similarityShare * denseRelevance(evidence.similarity, query.background, ranking) : 0;
  const relevance = fuseRelevance(dense, evidence.keyword, ranking, query.bestKeyword) * (evidence.turn?.focus ?? 1);
  const score = finalScore(
    relevance,
    { confidence: evidence.confidence, recency, category: hit.category, decayWeight: evidence.decayWeight },
    ranking,
  );
  return {
    ...hit,
    relevance,
    score: roundScore(score),
    scores: {
      similarity: roundScore(evidence.similarity),
      keyword: roundScore(evidence.keyword),
      recency: roundScore(recency),
      confidence: evidence.confidence,
    },
  };
}

/** Scores and timings as answered: four decimals. */
export function roundScore(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
