import {
  type Bm25Parameters,
  bm25Score,
  bm25Weights,
  DEFAULT_BM25,
  keywordTokens,
  termFrequencies,
} from '@hindsight/text';

export { type Bm25Parameters, DEFAULT_BM25 } from '@hindsight/text';

interface IndexedDocument {
  id: string;
  length: number;
  termFrequencies: Map<string, number>;
}

/**
 * Plain Okapi BM25 over `keywordTokens` terms — the baseline the eval puts beside hindsight.
 * Same analyser as memory-api's keyword index, no vectors, no fusion, no reranking: what a
 * user would get from a keyword search engine over the same memories.
 */
export class Bm25Index {
  private readonly documents: IndexedDocument[] = [];
  private readonly documentFrequency = new Map<string, number>();
  private totalLength = 0;

  constructor(private readonly parameters: Bm25Parameters = DEFAULT_BM25) {}

  get size(): number {
    return this.documents.length;
  }

  add(id: string, text: string): void {
    const terms = keywordTokens(text);
    const frequencies = termFrequencies(terms);
    for (const term of frequencies.keys())
      this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
    this.documents.push({ id, length: terms.length, termFrequencies: frequencies });
    this.totalLength += terms.length;
  }

  /** The `limit` best documents for `query`, best first; documents sharing no term are left out. */
  search(query: string, limit: number): Array<{ id: string; score: number }> {
    const count = this.documents.length;
    if (count === 0) return [];
    const averageLength = this.totalLength / count || 1;
    const weights = bm25Weights(
      [...new Set(keywordTokens(query))],
      count,
      (term) => this.documentFrequency.get(term) ?? 0,
    );
    const scored: Array<{ id: string; score: number }> = [];
    for (const document of this.documents) {
      const score = bm25Score(weights, document.termFrequencies, document.length, averageLength, this.parameters);
      if (score > 0) scored.push({ id: document.id, score });
    }
    // Ties keep insertion order (conversation order), so runs are reproducible.
    return scored.sort((x, y) => y.score - x.score).slice(0, limit);
  }
}
