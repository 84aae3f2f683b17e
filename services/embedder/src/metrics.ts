import { Counter, createMetricsRegistry, Histogram, type Registry } from '@hindsight/metrics';

/**
 * The embedder's own Prometheus metrics, one registry per app instance (tests build many).
 * HTTP request latency by route and `GET /metrics` come from @hindsight/metrics' plugin.
 */
export interface EmbedderMetrics {
  registry: Registry;
  embedDuration: Histogram<'provider'>;
  texts: Counter<'provider'>;
  batchSize: Histogram;
  cacheLookups: Counter<'result'>;
  cacheErrors: Counter;
  embedErrors: Counter<'provider'>;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): EmbedderMetrics {
  const registry = createMetricsRegistry({ service: 'embedder', processMetrics: options.processMetrics ?? false });
  return {
    registry,
    embedDuration: new Histogram({
      name: 'embedder_embed_duration_seconds',
      help: 'Time to embed one POST /embed request (cache, batching and provider included)',
      labelNames: ['provider'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    texts: new Counter({
      name: 'embedder_texts_total',
      help: 'Texts embedded',
      labelNames: ['provider'],
      registers: [registry],
    }),
    batchSize: new Histogram({
      name: 'embedder_provider_batch_size',
      help: 'Texts per provider call after micro-batching',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
      registers: [registry],
    }),
    cacheLookups: new Counter({
      name: 'embedder_cache_lookups_total',
      help: 'Cache lookups per text: lru_hit, redis_hit or miss',
      labelNames: ['result'],
      registers: [registry],
    }),
    cacheErrors: new Counter({
      name: 'embedder_cache_errors_total',
      help: 'Redis cache failures (embedding went on without the cache)',
      registers: [registry],
    }),
    embedErrors: new Counter({
      name: 'embedder_embed_errors_total',
      help: 'Failed embed requests',
      labelNames: ['provider'],
      registers: [registry],
    }),
  };
}
