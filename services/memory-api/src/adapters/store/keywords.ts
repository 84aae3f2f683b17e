import { createHash } from 'node:crypto';
import { type Bm25Parameters, bm25Score, bm25Weights, DEFAULT_BM25, termCommonness } from '@hindsight/text';
import type { Candidate } from '../../memory/store-port.ts';

/**
 * Marks a keyword term that a memory holds as context (a neighbouring turn's word), not as its
 * own. `keywordTokens` never starts a term with it.
 */
export const CONTEXT_MARK = '~';

/**
 * One keyword match as a store found it: the memory and every term indexed for it, repeats kept;
 * context terms carry `CONTEXT_MARK` in front.
 */
export interface KeywordMatch {
  id: string;
  terms: readonly string[];
}

/** One owner's keyword statistics: their memories, and how many of them hold each query term. */
export interface OwnerStatistics {
  documents: number;
  /** Over the memories' own terms (context copies of a turn's words do not count again). */
  documentFrequency: (term: string) => number;
  /**
   * The owner's average memory length, weighted as a match's length is (own terms + context weight
   * × context terms). A store that keeps it ranks every match against the same average, so a
   * match's score does not depend on which other matches were read; without it the matches' own
   * average stands in.
   */
  averageLength?: number;
}

/** How the stores rank keyword matches (memory-api's RANK_BM25_* and TURN_CONTEXT_WEIGHT). */
export interface KeywordRanking extends Bm25Parameters {
  /** How much a context term counts against an own term (BM25F field weight), 0..1. */
  contextWeight: number;
  /**
   * How much a query term that is common in English (see `termCommonness`) loses of its weight,
   * 0..1: a memory matching only "work" or "old" of a question is weak evidence, however rare
   * those words are among the owner's memories. The score is still divided by the undiscounted
   * query weight, so such a match scores low, not merely lower than a rare word's.
   */
  commonWordDiscount: number;
}

export const DEFAULT_KEYWORD_RANKING: KeywordRanking = {
  ...DEFAULT_BM25,
  b: 0.5,
  contextWeight: 0.3,
  // Off by default: 0.6 helped paraphrased facts (hit@1 +1) but cost the sessions eval's kept@5
  // (96.1 → 95.7) and REALTALK R@10 (56.0 → 55.9); see RANK_COMMON_WORD_DISCOUNT in the README.
  commonWordDiscount: 0,
};

/**
 * Ranks a store's keyword matches by BM25 with one owner's statistics — what a BM25 over that
 * user's memories alone would answer — best first, the `k` best. Both embedded and server stores
 * rank this way, so a search means the same on each.
 *
 * Context terms count as a second field (BM25F): term frequency and length are own + weight ×
 * context. The score is normalised by the query's total IDF weight, so it reads the same across
 * queries: about 1 for a memory holding every query term once at average length, less for a
 * memory holding only some of them (or only the common ones, or only in its context).
 */
export function rankKeywordMatches(
  queryTerms: readonly string[],
  matches: readonly KeywordMatch[],
  statistics: OwnerStatistics,
  k: number,
  ranking: KeywordRanking = DEFAULT_KEYWORD_RANKING,
): Candidate[] {
  const wanted = new Set(queryTerms);
  return rankCountedKeywordMatches(
    queryTerms,
    matches.map(({ id, terms }) => countTerms(id, terms, wanted, ranking.contextWeight)),
    statistics,
    k,
    ranking,
  );
}

/**
 * A keyword match counted: how often each query term occurs in it (a context occurrence counting
 * the context weight) and its length weighted the same way.
 */
export interface CountedKeywordMatch<Id = string> {
  id: Id;
  frequencies: ReadonlyMap<string, number>;
  length: number;
}

/** `rankKeywordMatches` for matches a store has counted itself (e.g. from its own token form). */
export function rankCountedKeywordMatches<Id = string>(
  queryTerms: readonly string[],
  matches: readonly CountedKeywordMatch<Id>[],
  statistics: OwnerStatistics,
  k: number,
  ranking: KeywordRanking = DEFAULT_KEYWORD_RANKING,
): Array<{ id: Id; score: number }> {
  if (matches.length === 0) return [];
  const averageLength = statistics.averageLength ?? matches.reduce((sum, f) => sum + f.length, 0) / matches.length;
  const scorer = keywordScorer(queryTerms, { ...statistics, averageLength }, ranking);
  if (!scorer) return [];
  return matches
    .map((match) => ({ id: match.id, score: scorer.score(match) }))
    .filter((candidate) => candidate.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

/** Scores keyword matches of one query against one owner's statistics, one match at a time. */
export interface KeywordScorer {
  /** A query term's weight (its IDF, less the common-word discount); 0 for a term not in the query. */
  weight(term: string): number;
  /** The normalised BM25 score of one counted match: 0 when it holds no query term. */
  score(match: Omit<CountedKeywordMatch, 'id'>): number;
  /**
   * A score that no match holding only `terms` of the query reaches (normalised like `score`): each
   * term adds at most weight × tf(k1 + 1) / (tf + k1(1 − b)), its contribution at length 0 and at
   * the most frequent it can be in one memory (`maxFrequency`, unbounded when not given).
   */
  ceiling(terms: Iterable<{ term: string; maxFrequency?: number }>): number;
}

/**
 * The scorer of `rankCountedKeywordMatches`, for a store that reads its matches in steps. Undefined
 * when no query term carries weight (no memory of the owner holds any of them).
 */
export function keywordScorer(
  queryTerms: readonly string[],
  statistics: OwnerStatistics & { averageLength: number },
  ranking: KeywordRanking = DEFAULT_KEYWORD_RANKING,
): KeywordScorer | undefined {
  const idf = bm25Weights(queryTerms, statistics.documents, statistics.documentFrequency);
  const queryWeight = [...idf.values()].reduce((sum, w) => sum + w, 0);
  if (queryWeight <= 0) return undefined;
  const weights = new Map(
    [...idf].map(([term, w]) => [term, w * (1 - ranking.commonWordDiscount * termCommonness(term))]),
  );
  const { k1, b } = ranking;
  return {
    weight: (term) => weights.get(term) ?? 0,
    score: ({ frequencies, length }) =>
      bm25Score(weights, frequencies, length, statistics.averageLength, ranking) / queryWeight,
    ceiling: (terms) => {
      let most = 0;
      for (const { term, maxFrequency = Number.POSITIVE_INFINITY } of terms) {
        const saturation = Number.isFinite(maxFrequency)
          ? (maxFrequency * (k1 + 1)) / (maxFrequency + k1 * (1 - b))
          : k1 + 1;
        most += (weights.get(term) ?? 0) * saturation;
      }
      return most / queryWeight;
    },
  };
}

function countTerms(
  id: string,
  terms: readonly string[],
  queryTerms: ReadonlySet<string>,
  contextWeight: number,
): CountedKeywordMatch {
  const frequencies = new Map<string, number>();
  let length = 0;
  for (const term of terms) {
    const context = term.startsWith(CONTEXT_MARK);
    const weight = context ? contextWeight : 1;
    length += weight;
    const plain = context ? term.slice(CONTEXT_MARK.length) : term;
    if (queryTerms.has(plain)) frequencies.set(plain, (frequencies.get(plain) ?? 0) + weight);
  }
  return { id, frequencies, length };
}

/**
 * The (tenant, user) prefix a store puts before each keyword term, so an index lookup reads only
 * that owner's postings: a fixed-length run of hex digits, which FTS5's tokenizer keeps in one
 * token with the term that follows it. `contextTermPrefix` is the same for context terms.
 */
export function ownerTermPrefix(tenant: string, userId: string): string {
  return `s${ownerDigest(tenant, userId)}`;
}

export function contextTermPrefix(tenant: string, userId: string): string {
  return `c${ownerDigest(tenant, userId)}`;
}

function ownerDigest(tenant: string, userId: string): string {
  return createHash('sha256').update(`${tenant}\u001f${userId}`).digest('hex').slice(0, 16);
}
