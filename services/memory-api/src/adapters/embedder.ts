import {
  BUILTIN_MODELS,
  createEmbedder,
  type Embedder,
  isBuiltinModel,
  type ProviderSettings,
} from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import type { MemoryApiConfig } from '../config.ts';

/**
 * The embedder memory-api uses: the embedder service when EMBEDDER_URL is set
 * (compose and the local launcher set it), otherwise a provider in process.
 */
export async function createEmbedderFromConfig(config: MemoryApiConfig, log: Logger): Promise<Embedder> {
  const provider = providerSettings(config);
  const embedder = await createEmbedder({
    ...provider,
    ...(provider.provider === 'builtin' ? {} : { batch: { maxBatchSize: 64, maxWaitMs: 2 } }),
    cache: { lruSize: config.EMBED_CACHE_SIZE },
  });
  log.info({ provider: provider.provider, model: embedder.model, dimension: embedder.dimension }, 'embedder ready');
  return embedder;
}

function providerSettings(config: MemoryApiConfig): ProviderSettings {
  if (config.EMBEDDER_URL) {
    return { provider: 'remote', url: config.EMBEDDER_URL, timeoutMs: config.EMBEDDINGS_TIMEOUT_MS };
  }
  if (config.EMBEDDINGS_PROVIDER === 'openai') {
    if (!config.EMBEDDINGS_BASE_URL || !config.EMBEDDINGS_MODEL) {
      throw new Error('EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL');
    }
    return {
      provider: 'openai',
      baseUrl: config.EMBEDDINGS_BASE_URL,
      model: config.EMBEDDINGS_MODEL,
      timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
      ...(config.EMBEDDINGS_API_KEY ? { apiKey: config.EMBEDDINGS_API_KEY } : {}),
      ...(config.EMBEDDINGS_DIM_SET ? { dimension: config.EMBEDDINGS_DIM } : {}),
    };
  }
  const model = config.EMBEDDINGS_MODEL;
  if (model !== undefined && !isBuiltinModel(model)) {
    throw new Error(`EMBEDDINGS_MODEL=${model}: the builtin provider serves ${BUILTIN_MODELS.join(' or ')}`);
  }
  return {
    provider: 'builtin',
    dimension: config.EMBEDDINGS_DIM,
    model,
    wordTableDir: config.EMBEDDINGS_WORD_TABLE_DIR,
  };
}
