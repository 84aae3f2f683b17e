import { OpenAiCompatibleEmbedder, type OpenAiCompatibleSettings } from './adapters/openai-compatible.ts';
import { RemoteEmbedder, type RemoteEmbedderSettings } from './adapters/remote.ts';
import { BuiltinEmbedder } from './builtin/builtin-embedder.ts';
import type { Embedder } from './port.ts';
import { CachedEmbedder, type CachedEmbedderOptions } from './throughput/cached-embedder.ts';
import { MicroBatcher, type MicroBatcherOptions } from './throughput/micro-batcher.ts';

export type ProviderSettings =
  | { provider: 'builtin'; dimension?: number }
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
      return new BuiltinEmbedder({ dimension: settings.dimension });
    case 'openai':
      return OpenAiCompatibleEmbedder.connect(settings);
    case 'remote':
      return RemoteEmbedder.connect(settings);
  }
}
