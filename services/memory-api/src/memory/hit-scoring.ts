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
  /** A stored fact's weight for a question about a relative (relations.ts); 1 or absent otherwise. */
  about?: number;
  /**
   * A stored fact that states the kind of answer the question asks for, of the person it asks about
   * (`stated`), or states only a kind that is no answer to it (`other`: a job, for unpaid work; asked-kinds.ts).
   */
  askedKind?: 'stated' | 'other';
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
 * recency, category and decay; the parts are reported in `scores`. The hit is a new object with
 * its fields named one by one: an object spread with fields added (`{...hit, score}`) cost ~3.6 µs
 * per hit on Node 20 against ~0.05 µs, and a search scores some 70 candidates, several times over.
 */
export function scoreHit(
  hit: Omit<SearchHit, 'score' | 'scores'>,
  evidence: HitEvidence,
  query: QueryEvidence,
  supersededBy: string | null,
): Ranked {
  const { ranking } = query;
  const recency = recencyWeight(Date.parse(hit.occurred_at), query.now, ranking.recencyHalfLifeDays);
  const similarityShare = evidence.turn ? ranking.turnDenseWeight : 1;
  const dense = query.dense ? similarityShare * denseRelevance(evidence.similarity, query.background, ranking) : 0;
  // A relation weight above 1 may lift a fact past the scale's top: relevance stays 0..1.
  const relevance = Math.min(
    1,
    byAskedKind(fuseRelevance(dense, evidence.keyword, ranking, query.bestKeyword), evidence.askedKind, ranking) *
      (evidence.turn?.focus ?? 1) *
      (evidence.about ?? 1),
  );
  const score = finalScore(
    relevance,
    { confidence: evidence.confidence, recency, category: hit.category, decayWeight: evidence.decayWeight },
    ranking,
  );
  return {
    id: hit.id,
    content: hit.content,
    layer: hit.layer,
    category: hit.category,
    score: roundScore(score),
    scores: {
      similarity: roundScore(evidence.similarity),
      keyword: roundScore(evidence.keyword),
      recency: roundScore(recency),
      confidence: evidence.confidence,
    },
    status: hit.status,
    tags: hit.tags,
    occurred_at: hit.occurred_at,
    created_at: hit.created_at,
    metadata: hit.metadata,
    source: hit.source,
    relevance,
    supersededBy,
  };
}

/** A scored hit as answered: without what only the read path uses. */
export function answeredHit(ranked: Ranked): SearchHit {
  return {
    id: ranked.id,
    content: ranked.content,
    layer: ranked.layer,
    category: ranked.category,
    score: ranked.score,
    scores: ranked.scores,
    status: ranked.status,
    tags: ranked.tags,
    occurred_at: ranked.occurred_at,
    created_at: ranked.created_at,
    metadata: ranked.metadata,
    source: ranked.source,
  };
}

/** Scores and timings as answered: four decimals. */
export function roundScore(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** A fact stating the asked kind has at least `askedKindMatch`; one stating only another kind that share less. */
function byAskedKind(relevance: number, kind: HitEvidence['askedKind'], ranking: RankingWeights): number {
  if (kind === 'stated') return Math.max(relevance, ranking.askedKindMatch);
  if (kind === 'other') return relevance * (1 - ranking.askedKindMatch);
  return relevance;
}
