import { createEmbedder, type Embedder, providerSettingsFromEnv } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import type { MemoryApiConfig } from '../config.ts';

/**
 * The embedder memory-api uses: the embedder service when EMBEDDER_URL is set
 * (compose and the local launcher set it), otherwise a provider in process, read from the same
 * variables the embedder service reads (`providerSettingsFromEnv`).
 */
export async function createEmbedderFromConfig(config: MemoryApiConfig, log: Logger): Promise<Embedder> {
  const provider = providerSettingsFromEnv(config, config.EMBEDDER_URL);
  const embedder = await createEmbedder({
    ...provider,
    // A model server gains from batches of concurrent writes; the embedder service batches for its
    // own provider already, so its calls only coalesce within one event-loop turn: a lone query
    // waited ~2 ms for company on every /retrieve. At most two calls are on their way to it at once:
    // what arrives meanwhile goes in the next round trip together (16 writers: one embed request
    // per write before).
    ...(provider.provider === 'builtin'
      ? {}
      : { batch: { maxBatchSize: 64, maxWaitMs: provider.provider === 'remote' ? 0 : 2, maxInFlight: 2 } }),
    cache: { lruSize: config.EMBED_CACHE_SIZE },
  });
  log.info({ provider: provider.provider, model: embedder.model, dimension: embedder.dimension }, 'embedder ready');
  return embedder;
}
