import type { Embedder } from '@hindsight/embedding';
import type { MemoryInput, SearchRequest, SearchResponse, WriteResult } from '@hindsight/memory-model';
import { Counter, Gauge, Histogram, type Registry } from '@hindsight/metrics';
import type { MemoryStore } from '../memory/store-port.ts';
import type { WriteContext } from '../memory/write.ts';

/** Seconds; the store and the built-in embedder answer in well under a millisecond to tens of ms. */
const FAST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * What memory-api measures about its memory, beyond HTTP latency. Counters are per process;
 * Prometheus sums them over replicas. `activity` keeps the few figures `/debug/memory` shows.
 */
export interface MemoryApiMetrics {
  readonly registry: Registry;
  readonly storeQuery: Histogram<'operation'>;
  readonly embedDuration: Histogram;
  readonly embedBatchSize: Histogram;
  readonly writeOutcomes: Counter<'status' | 'layer'>;
  readonly imports: Counter;
  readonly searchDuration: Histogram;
  readonly searches: Counter<'outcome'>;
  readonly activity: MemoryActivity;
}

/** Per-process activity since start, for `/debug/memory`. */
export interface MemoryActivity {
  lastWriteAt: string | null;
  searches: number;
  searchesWithResults: number;
}

/** Store operations worth a latency series; the rest are bookkeeping called rarely. */
const TIMED_STORE_OPERATIONS = new Set<string>([
  'commit',
  'get',
  'getMany',
  'findActiveByHash',
  'list',
  'listIds',
  'count',
  'vectorSearch',
  'keywordSearch',
  'similarities',
  'searchCandidates',
  'recordAccess',
  'deleteMany',
  'countByLayer',
]);

export function createMemoryApiMetrics(registry: Registry, store: Pick<MemoryStore, 'countByLayer'>): MemoryApiMetrics {
  const activity: MemoryActivity = { lastWriteAt: null, searches: 0, searchesWithResults: 0 };
  new Gauge({
    name: 'hindsight_memories',
    help: 'Long-term memories by layer and status (all tenants), read from the store on scrape',
    labelNames: ['layer', 'status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await store.countByLayer()) this.set({ layer: row.layer, status: row.status }, row.count);
    },
  });
  return {
    registry,
    activity,
    storeQuery: new Histogram({
      name: 'hindsight_store_query_duration_seconds',
      help: 'Long-term store call latency by operation',
      labelNames: ['operation'] as const,
      buckets: FAST_BUCKETS,
      registers: [registry],
    }),
    embedDuration: new Histogram({
      name: 'hindsight_embed_duration_seconds',
      help: 'Time to embed one batch of texts',
      buckets: FAST_BUCKETS,
      registers: [registry],
    }),
    embedBatchSize: new Histogram({
      name: 'hindsight_embed_batch_size',
      help: 'Texts per embed call',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000],
      registers: [registry],
    }),
    writeOutcomes: new Counter({
      name: 'hindsight_memory_writes_total',
      help: 'Long-term write outcomes (created, duplicate, merged, superseded, quarantined) by layer',
      labelNames: ['status', 'layer'] as const,
      registers: [registry],
    }),
    imports: new Counter({
      name: 'hindsight_memory_imports_total',
      help: 'Records inserted by POST /v1/import',
      registers: [registry],
    }),
    searchDuration: new Histogram({
      name: 'hindsight_search_duration_seconds',
      help: 'Read-path latency inside memory-api (embed, candidates, fuse, rerank, budget)',
      buckets: FAST_BUCKETS,
      registers: [registry],
    }),
    searches: new Counter({
      name: 'hindsight_searches_total',
      help: 'Searches by outcome: hit (at least one result) or empty',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
  };
}

/**
 * A store that times the steps inside one of its calls, where no proxy sees them (the embedded
 * store's `searchCandidates`, run in a read worker: keyword search, k-NN, records).
 */
interface StageReporting {
  onStage(listener: (stage: string, seconds: number) => void): void;
}

function reportsStages(store: object): store is StageReporting {
  return typeof (store as Partial<StageReporting>).onStage === 'function';
}

/**
 * The store with each call's latency recorded under its operation name, and the steps it times
 * itself (`StageReporting`) under theirs.
 */
export function instrumentStore(store: MemoryStore, metrics: Pick<MemoryApiMetrics, 'storeQuery'>): MemoryStore {
  if (reportsStages(store)) {
    store.onStage((stage, seconds) => metrics.storeQuery.observe({ operation: stage }, seconds));
  }
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || !TIMED_STORE_OPERATIONS.has(property)) {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: unknown[]) => {
        const stop = metrics.storeQuery.startTimer({ operation: property });
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).finally(stop);
      };
    },
  });
}

/** The embedder with its call latency and batch sizes recorded. */
export function instrumentEmbedder(
  embedder: Embedder,
  metrics: Pick<MemoryApiMetrics, 'embedDuration' | 'embedBatchSize'>,
): Embedder {
  return {
    get model() {
      return embedder.model;
    },
    get dimension() {
      return embedder.dimension;
    },
    check: () => embedder.check(),
    ...(embedder.close ? { close: () => (embedder.close as () => Promise<void>)() } : {}),
    ...(embedder.align
      ? { align: (query: string, texts: readonly string[]) => (embedder.align as Embedder['align'] & {})(query, texts) }
      : {}),
    ...(embedder.forget
      ? { forget: (texts: readonly string[]) => (embedder.forget as Embedder['forget'] & {})(texts) }
      : {}),
    embed: async (texts) => {
      metrics.embedBatchSize.observe(texts.length);
      const stop = metrics.embedDuration.startTimer();
      try {
        return await embedder.embed(texts);
      } finally {
        stop();
      }
    },
  };
}

/** What the write and read paths look like from the outside; both are wrapped the same way. */
interface WriteAndSearch {
  write(ctx: WriteContext, inputs: readonly MemoryInput[]): Promise<WriteResult[]>;
  search(tenant: string, request: SearchRequest): Promise<SearchResponse>;
}

/** Counts write outcomes and times searches around a memory service, keeping its other members. */
export function instrumentMemoryService<S extends WriteAndSearch>(service: S, metrics: MemoryApiMetrics): S {
  return {
    ...service,
    write: async (ctx: WriteContext, inputs: readonly MemoryInput[]) => {
      const results = await service.write(ctx, inputs);
      recordWrites(metrics, results);
      return results;
    },
    search: async (tenant: string, request: SearchRequest) => {
      const stop = metrics.searchDuration.startTimer();
      const response = await service.search(tenant, request);
      stop();
      recordSearch(metrics, response.results.length);
      return response;
    },
  };
}

/** Shared by the write path and imports, so both move the same counters. */
export function recordWrites(
  metrics: MemoryApiMetrics,
  results: ReadonlyArray<Pick<WriteResult, 'status' | 'layer'>>,
): void {
  if (results.length === 0) return;
  for (const result of results) metrics.writeOutcomes.inc({ status: result.status, layer: result.layer });
  metrics.activity.lastWriteAt = new Date().toISOString();
}

function recordSearch(metrics: MemoryApiMetrics, resultCount: number): void {
  const hit = resultCount > 0;
  metrics.searches.inc({ outcome: hit ? 'hit' : 'empty' });
  metrics.activity.searches += 1;
  if (hit) metrics.activity.searchesWithResults += 1;
}
