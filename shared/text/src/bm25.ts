/**
 * Okapi BM25 (Robertson & Zaragoza, 2009), the one implementation every keyword ranking in the
 * project uses: the SQLite and PostgreSQL stores rescore their candidates with it, the eval's
 * keyword baseline ranks with it. Collection statistics are the caller's: each store counts them
 * over one owner's memories.
 */
export interface Bm25Parameters {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalisation. */
  b: number;
}

/** The usual Okapi defaults. */
export const DEFAULT_BM25: Bm25Parameters = { k1: 1.2, b: 0.75 };

/**
 * Each query term's IDF weight, given how many documents the collection holds and how many of them
 * contain the term (absent → 0). The "+1" form stays positive for terms in most documents.
 */
export function bm25Weights(
  queryTerms: readonly string[],
  documents: number,
  documentFrequency: (term: string) => number,
): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of queryTerms) {
    const df = documentFrequency(term);
    weights.set(term, Math.log(1 + (documents - df + 0.5) / (df + 0.5)));
  }
  return weights;
}

/** How often each term occurs in `terms`, counting only the terms `keep` holds when given. */
export function termFrequencies(terms: readonly string[], keep?: ReadonlyMap<string, unknown>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) if (!keep || keep.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** The BM25 score of one document of `length` terms with these term frequencies. */
export function bm25Score(
  weights: ReadonlyMap<string, number>,
  frequencies: ReadonlyMap<string, number>,
  length: number,
  averageLength: number,
  parameters: Bm25Parameters = DEFAULT_BM25,
): number {
  const { k1, b } = parameters;
  const norm = k1 * (1 - b + (b * length) / (averageLength || 1));
  let score = 0;
  for (const [term, weight] of weights) {
    const tf = frequencies.get(term);
    if (tf !== undefined && tf > 0) score += weight * ((tf * (k1 + 1)) / (tf + norm));
  }
  return score;
}
