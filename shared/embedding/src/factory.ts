import { OpenAiCompatibleEmbedder, type OpenAiCompatibleSettings } from './adapters/openai-compatible.ts';
import { RemoteEmbedder, type RemoteEmbedderSettings } from './adapters/remote.ts';
import { BuiltinEmbedder } from './builtin/builtin-embedder.ts';
import {
  type BuiltinFeatures,
  LEXICAL_FEATURES,
  V4_FEATURES,
  V5_FEATURES,
  V6_FEATURES,
  V7_FEATURES,
  V8_FEATURES,
  V9_FEATURES,
  V10_FEATURES,
  V11_FEATURES,
  WORD_VECTOR_FEATURES,
} from './builtin/features.ts';
import type { BuiltinModel } from './builtin/models.ts';
import type { Embedder } from './port.ts';
import { CachedEmbedder, type CachedEmbedderOptions } from './throughput/cached-embedder.ts';
import { MicroBatcher, type MicroBatcherOptions } from './throughput/micro-batcher.ts';

const BUILTIN_MODEL_FEATURES: Readonly<Record<BuiltinModel, Readonly<BuiltinFeatures>>> = {
  'builtin-v11': V11_FEATURES,
  'builtin-v10': V10_FEATURES,
  'builtin-v9': V9_FEATURES,
  'builtin-v8': V8_FEATURES,
  'builtin-v7': V7_FEATURES,
  'builtin-v6': V6_FEATURES,
  'builtin-v5': V5_FEATURES,
  'builtin-v4': V4_FEATURES,
  'builtin-v3': WORD_VECTOR_FEATURES,
  'builtin-v2': LEXICAL_FEATURES,
};

export type ProviderSettings =
  | { provider: 'builtin'; dimension?: number; model?: BuiltinModel; wordTableDir?: string }
  | ({ provider: 'openai' } & OpenAiCompatibleSettings)
  | ({ provider: 'remote' } & RemoteEmbedderSettings);

export type EmbedderSettings = ProviderSettings & {
  /** Coalesce concurrent calls into provider batches. */
  batch?: MicroBatcherOptions;
  /** Cache vectors in process and, with a Redis client, across replicas. */
  cache?: CachedEmbedderOptions;
};

/**
 * Builds an embedder from plain settings (each service's config.ts maps its env onto them).
 * Layers, outermost first: cache (a hit never waits for a batch) → micro-batcher → provider.
 * The openai and remote providers are contacted once here when they must learn their dimension
 * or model, so a misconfiguration fails at startup rather than on the first write.
 */
export async function createEmbedder(settings: EmbedderSettings): Promise<Embedder> {
  let embedder = await createProvider(settings);
  if (settings.batch) embedder = new MicroBatcher(embedder, settings.batch);
  if (settings.cache && (settings.cache.lruSize > 0 || settings.cache.redis)) {
    embedder = new CachedEmbedder(embedder, settings.cache);
  }
  return embedder;
}

async function createProvider(settings: ProviderSettings): Promise<Embedder> {
  switch (settings.provider) {
    case 'builtin':
      return new BuiltinEmbedder({
        dimension: settings.dimension,
        features: BUILTIN_MODEL_FEATURES[settings.model ?? 'builtin-v11'],
        wordTableLocation: { cacheDir: settings.wordTableDir },
      });
    case 'openai':
      return OpenAiCompatibleEmbedder.connect(settings);
    case 'remote':
      return RemoteEmbedder.connect(settings);
  }
}
