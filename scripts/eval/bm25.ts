import { keywordTokens } from '@hindsight/text';

export interface Bm25Parameters {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalisation. */
  b: number;
}

/** The usual Okapi defaults (Robertson & Zaragoza, 2009). */
export const DEFAULT_BM25: Bm25Parameters = { k1: 1.2, b: 0.75 };

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
    const termFrequencies = new Map<string, number>();
    const terms = keywordTokens(text);
    for (const term of terms) termFrequencies.set(term, (termFrequencies.get(term) ?? 0) + 1);
    for (const term of termFrequencies.keys())
      this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
    this.documents.push({ id, length: terms.length, termFrequencies });
    this.totalLength += terms.length;
  }

  /** The `limit` best documents for `query`, best first; documents sharing no term are left out. */
  search(query: string, limit: number): Array<{ id: string; score: number }> {
    const count = this.documents.length;
    if (count === 0) return [];
    const { k1, b } = this.parameters;
    const averageLength = this.totalLength / count || 1;
    const queryTerms = [...new Set(keywordTokens(query))];
    const weights = queryTerms.map((term) => {
      const df = this.documentFrequency.get(term) ?? 0;
      // The "+1" form of IDF stays positive for terms in more than half of the documents.
      return Math.log(1 + (count - df + 0.5) / (df + 0.5));
    });
    const scored: Array<{ id: string; score: number }> = [];
    for (const document of this.documents) {
      let score = 0;
      queryTerms.forEach((term, i) => {
        const tf = document.termFrequencies.get(term);
        if (tf === undefined) return;
        const norm = k1 * (1 - b + (b * document.length) / averageLength);
        score += (weights[i] as number) * ((tf * (k1 + 1)) / (tf + norm));
      });
      if (score > 0) scored.push({ id: document.id, score });
    }
    // Ties keep insertion order (conversation order), so runs are reproducible.
    return scored.sort((x, y) => y.score - x.score).slice(0, limit);
  }
}
