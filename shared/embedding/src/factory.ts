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
import type { Embedder } from './port.ts';
import { CachedEmbedder, type CachedEmbedderOptions } from './throughput/cached-embedder.ts';
import { MicroBatcher, type MicroBatcherOptions } from './throughput/micro-batcher.ts';

/**
 * The built-in models by name: `builtin-v11` (default: v10 with stand-ins for the words its table
 * lacks — a compound's parts, a singular, a medicine's class — and phrases for a partner one is seeing, an
 * operation, a trip at a time), `builtin-v10` (v9 with faith and charity-work answer kinds and the phrases
 * that ask for or state an age, a home, a commute, free time or a partner), `builtin-v9` (v8 with WordNet's derived forms of listed
 * words, activity verbs taken back by an object, names not read as the things they name),
 * `builtin-v8` (v7 with seven more answer kinds, inflections
 * of listed words and more question phrases), `builtin-v7` (v6 with the light verbs left out of the
 * word-vector block), `builtin-v6` (v5 with birthday, education, residence,
 * pastime and smoking answer kinds), `builtin-v5` (v4 with more answer kinds, their members also
 * found under WordNet hypernyms), `builtin-v4` (v3 + answer kinds + Chinese word vectors),
 * `builtin-v3` (word vectors + lexical), `builtin-v2` (lexical only).
 */
export const BUILTIN_MODELS = [
  'builtin-v11',
  'builtin-v10',
  'builtin-v9',
  'builtin-v8',
  'builtin-v7',
  'builtin-v6',
  'builtin-v5',
  'builtin-v4',
  'builtin-v3',
  'builtin-v2',
] as const;
export type BuiltinModel = (typeof BUILTIN_MODELS)[number];

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

export function isBuiltinModel(name: string): name is BuiltinModel {
  return (BUILTIN_MODELS as readonly string[]).includes(name);
}

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
