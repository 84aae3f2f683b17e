import { createHash } from 'node:crypto';
import { bm25Score, bm25Weights, termFrequencies } from '@hindsight/text';
import type { Candidate } from '../../memory/store-port.ts';

/** One keyword match as a store found it: the memory and every term indexed for it, repeats kept. */
export interface KeywordMatch {
  id: string;
  terms: readonly string[];
}

/** One owner's keyword statistics: their memories, and how many of them hold each query term. */
export interface OwnerStatistics {
  documents: number;
  documentFrequency: (term: string) => number;
}

/**
 * Ranks a store's keyword matches by BM25 with one owner's statistics — what a BM25 over that
 * user's memories alone would answer — best first, the `k` best. Both embedded and server stores
 * rank this way, so a search means the same on each; the average length is that of the matches.
 */
export function rankKeywordMatches(
  queryTerms: readonly string[],
  matches: readonly KeywordMatch[],
  statistics: OwnerStatistics,
  k: number,
): Candidate[] {
  if (matches.length === 0) return [];
  const weights = bm25Weights(queryTerms, statistics.documents, statistics.documentFrequency);
  const averageLength = matches.reduce((sum, match) => sum + match.terms.length, 0) / matches.length;
  return matches
    .map(({ id, terms }) => ({
      id,
      score: bm25Score(weights, termFrequencies(terms, weights), terms.length, averageLength),
    }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

/**
 * The (tenant, user) prefix a store puts before each keyword term, so an index lookup reads only
 * that owner's postings: a fixed-length run of hex digits, which FTS5's tokenizer keeps in one
 * token with the term that follows it.
 */
export function ownerTermPrefix(tenant: string, userId: string): string {
  return `s${createHash('sha256').update(`${tenant}\u001f${userId}`).digest('hex').slice(0, 16)}`;
}
