import { keywordTokens } from '@hindsight/text';

/** A Qdrant sparse vector: unique ascending indices with their weights. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/**
 * BM25 term-frequency saturation. Qdrant multiplies each stored weight by the
 * term's IDF (`modifier: idf`) at query time, so the stored weight is the TF
 * part of BM25 only. Memories are short; the average length is a constant
 * instead of a collection statistic that would change every stored vector.
 */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const AVERAGE_TERMS = 16;

/** FNV-1a over the UTF-8 bytes: a stable 32-bit index per term, the same in every process and release. */
export function termIndex(term: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(term, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Document-side sparse vector: BM25-saturated term frequencies of `keywordTokens(text)`. */
export function documentSparseVector(text: string): SparseVector {
  const terms = keywordTokens(text);
  const frequency = new Map<number, number>();
  for (const term of terms) {
    const index = termIndex(term);
    frequency.set(index, (frequency.get(index) ?? 0) + 1);
  }
  const lengthNorm = 1 - BM25_B + (BM25_B * terms.length) / AVERAGE_TERMS;
  return toSparse(frequency, (tf) => (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * lengthNorm));
}

/** Query-side sparse vector: each distinct term once with weight 1 (BM25 ignores query term frequency). */
export function querySparseVector(terms: readonly string[]): SparseVector {
  const present = new Map<number, number>();
  for (const term of terms) present.set(termIndex(term), 1);
  return toSparse(present, (weight) => weight);
}

function toSparse(weights: Map<number, number>, weigh: (raw: number) => number): SparseVector {
  const indices = [...weights.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => weigh(weights.get(index) ?? 0)) };
}
