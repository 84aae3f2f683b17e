import { createEmbedder, type Embedder, type EmbedderSettings, providerSettingsFromEnv } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import type { Redis } from 'ioredis';
import type { EmbedderConfig } from '../config.ts';
import type { EmbedderMetrics } from '../metrics.ts';

/** Maps the service's env onto embedder settings, wiring cache and batch events to metrics and logs. */
export function embedderSettings(
  config: EmbedderConfig,
  deps: { metrics: EmbedderMetrics; logger: Logger; redis?: Redis },
): EmbedderSettings {
  const provider = providerSettingsFromEnv(config);
  const { metrics, logger, redis } = deps;
  return {
    ...provider,
    // Only a model server gains from batches (scripts/bench/embedder.ts: ×10 against a simulated
    // one); the builtin is CPU-bound in this process, where waiting for company only adds latency.
    ...(config.EMBEDDINGS_PROVIDER === 'openai' && config.EMBED_BATCH_WAIT_MS > 0
      ? {
          batch: {
            maxBatchSize: config.EMBED_BATCH_SIZE,
            maxWaitMs: config.EMBED_BATCH_WAIT_MS,
            onBatch: (size: number) => metrics.batchSize.observe(size),
          },
        }
      : {}),
    cache: {
      lruSize: config.EMBED_CACHE_SIZE,
      redis,
      redisPrefix: config.EMBED_CACHE_REDIS_PREFIX,
      redisTtlSeconds: config.EMBED_CACHE_TTL_SECONDS,
      redisMaxEntries: config.EMBED_CACHE_REDIS_MAX_ENTRIES,
      redisMemoryCeiling: config.EMBED_CACHE_REDIS_MEMORY_CEILING,
      onLookup: ({ lruHits, redisHits, misses }) => {
        if (lruHits) metrics.cacheLookups.inc({ result: 'lru_hit' }, lruHits);
        if (redisHits) metrics.cacheLookups.inc({ result: 'redis_hit' }, redisHits);
        if (misses) metrics.cacheLookups.inc({ result: 'miss' }, misses);
      },
      onCacheError: (error: unknown) => {
        metrics.cacheErrors.inc();
        logger.warn({ err: error }, 'embedding cache (Redis) failed; embedding without it');
      },
    },
  };
}

export function createEmbedderFromConfig(
  config: EmbedderConfig,
  deps: { metrics: EmbedderMetrics; logger: Logger; redis?: Redis },
): Promise<Embedder> {
  return createEmbedder(embedderSettings(config, deps));
}
