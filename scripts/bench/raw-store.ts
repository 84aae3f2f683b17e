import type { Embedder } from '@hindsight/embedding';
import { keywordTokens } from '@hindsight/text';
import type { MemoryStore, SearchScope } from '../../services/memory-api/src/memory/store-port.ts';
import { type LatencyFigures, summariseLatency } from './http-client.ts';

export interface RawStoreFigures {
  /** k-NN + FTS5 + row fetch + similarities of keyword-only candidates: the store work of one search. */
  storeQuery: LatencyFigures;
  knn: LatencyFigures;
  fts: LatencyFigures;
  rows: LatencyFigures;
  /** Embedding the query with the same built-in embedder (not part of the store query). */
  embed: LatencyFigures;
}

/**
 * The store-side floor of a search: the same store memory-api writes (its SQLite file, or its
 * PostgreSQL schema), opened by the same adapter in this process, asked for what one `/retrieve` asks of it (same candidate count, same
 * scope), without HTTP, validation, fusion, reranking or serialisation.
 */
export async function measureRawStore(options: {
  /** The store memory-api wrote, opened here by the same adapter. */
  store: MemoryStore;
  embedder: Embedder;
  /** The space memory-api built the store in (its embedder's model may be named apart from this one's). */
  space?: { model: string; dimension: number };
  queries: ReadonlyArray<{ query: string; userId: string }>;
  candidates: number;
  tenant?: string;
}): Promise<RawStoreFigures> {
  const store = options.store;
  await store.open(options.space ?? { model: options.embedder.model, dimension: options.embedder.dimension });
  const tenant = options.tenant ?? 'default';
  const samples = {
    storeQuery: [] as number[],
    knn: [] as number[],
    fts: [] as number[],
    rows: [] as number[],
    embed: [] as number[],
  };
  try {
    // Warm the page cache and statement cache like the service's warm-up requests do.
    for (const { query, userId } of options.queries.slice(0, 20)) {
      const [vector] = await options.embedder.embed([query]);
      await store.vectorSearch(scopeOf(tenant, userId), vector as Float32Array, options.candidates);
    }
    const started = performance.now();
    for (const { query, userId } of options.queries) {
      const e0 = performance.now();
      const [vector] = await options.embedder.embed([query]);
      samples.embed.push(performance.now() - e0);
      const scope = scopeOf(tenant, userId);
      const t0 = performance.now();
      const dense = await store.vectorSearch(scope, vector as Float32Array, options.candidates);
      const t1 = performance.now();
      const keyword = await store.keywordSearch(scope, keywordTokens(query), options.candidates);
      const t2 = performance.now();
      const denseIds = new Set(dense.map((d) => d.id));
      const ids = [...new Set([...denseIds, ...keyword.map((k) => k.id)])];
      await store.getMany(tenant, ids);
      const missing = ids.filter((id) => !denseIds.has(id));
      if (missing.length > 0) await store.similarities(tenant, missing, vector as Float32Array);
      const t3 = performance.now();
      samples.knn.push(t1 - t0);
      samples.fts.push(t2 - t1);
      samples.rows.push(t3 - t2);
      samples.storeQuery.push(t3 - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      storeQuery: summariseLatency(samples.storeQuery, 1, seconds),
      knn: summariseLatency(samples.knn, 1, seconds),
      fts: summariseLatency(samples.fts, 1, seconds),
      rows: summariseLatency(samples.rows, 1, seconds),
      embed: summariseLatency(samples.embed, 1, seconds),
    };
  } finally {
    await store.close();
  }
}

function scopeOf(tenant: string, userId: string): SearchScope {
  return { tenant, userId, statuses: ['active'], validAt: Date.now() };
}
