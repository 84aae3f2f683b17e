import type { Schemas } from '@qdrant/js-client-rest';
import type { QdrantFilter } from './filter.ts';
import { DENSE_VECTOR, KEYWORD_VECTOR } from './points.ts';
import type { SparseVector } from './sparse.ts';

/**
 * The body of one `POST /collections/{name}/points/query` request. Candidates carry
 * only the memory id; the read path loads whole records afterwards.
 */
export type QueryRequest = Schemas['QueryRequest'];

/** Dense k-NN by cosine under `filter`; scores are cosine similarities. */
export function denseQuery(vector: ArrayLike<number>, filter: QdrantFilter, limit: number): QueryRequest {
  return { query: Array.from(vector), using: DENSE_VECTOR, filter, limit, with_payload: ['id'] };
}

/** Keyword search over the IDF-weighted sparse vectors; scores are BM25-like relevance. */
export function keywordQuery(terms: SparseVector, filter: QdrantFilter, limit: number): QueryRequest {
  return {
    query: { indices: terms.indices, values: terms.values },
    using: KEYWORD_VECTOR,
    filter,
    limit,
    with_payload: ['id'],
  };
}

/**
 * Both candidate lists fused by Qdrant itself (prefetch + reciprocal rank fusion)
 * in one round trip. The filter is applied inside each prefetch, where it prunes
 * the search, not after fusion.
 */
export function hybridQuery(
  vector: ArrayLike<number>,
  terms: SparseVector,
  filter: QdrantFilter,
  limit: number,
  rrfK: number,
): QueryRequest {
  const perSource = Math.max(limit * 2, 20);
  const prefetch: Schemas['Prefetch'][] = [
    { query: Array.from(vector), using: DENSE_VECTOR, filter, limit: perSource },
  ];
  if (terms.indices.length > 0) {
    prefetch.push({
      query: { indices: terms.indices, values: terms.values },
      using: KEYWORD_VECTOR,
      filter,
      limit: perSource,
    });
  }
  return { prefetch, query: { rrf: { k: rrfK } }, limit, with_payload: ['id'] };
}
