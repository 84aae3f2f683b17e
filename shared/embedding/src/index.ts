export { OpenAiCompatibleEmbedder, type OpenAiCompatibleSettings } from './adapters/openai-compatible.ts';
export { RemoteEmbedder, type RemoteEmbedderSettings } from './adapters/remote.ts';
export { MalformedEmbeddingsError, validateVectors } from './adapters/validate.ts';
export {
  BUILTIN_ALGORITHM_VERSION,
  BuiltinEmbedder,
  type BuiltinEmbedderOptions,
  DEFAULT_BUILTIN_DIMENSION,
} from './builtin/builtin-embedder.ts';
export {
  BASELINE_FEATURES,
  BUILTIN_FEATURES,
  type BuiltinFeatures,
  extractFeatures,
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
export { BUILTIN_MODELS, type BuiltinModel, isBuiltinModel } from './builtin/models.ts';
export type { DerivationOptions } from './builtin/word-vectors/derive.ts';
export { WordTable } from './builtin/word-vectors/word-table.ts';
export {
  DEFAULT_DERIVATION,
  type DerivedLexicon,
  loadDerivedLexicon,
  loadWordTable,
  type WordTableLocation,
  WordVectorsUnavailableError,
  wordTablePath,
} from './builtin/word-vectors/word-table-file.ts';
export { createEmbedder, type EmbedderSettings, type ProviderSettings } from './factory.ts';
export type { Embedder } from './port.ts';
export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  CircuitOpenError,
  type CircuitState,
} from './resilience/circuit-breaker.ts';
export { GuardedEmbedder, type GuardedEmbedderOptions } from './resilience/guarded-embedder.ts';
export { type RetryOptions, withRetries } from './resilience/retry.ts';
export { checkEmbeddingEnv, EmbeddingEnv, providerSettingsFromEnv } from './settings.ts';
export {
  CachedEmbedder,
  type CachedEmbedderOptions,
  type CacheLookup,
  DEFAULT_REDIS_CACHE_ENTRIES,
} from './throughput/cached-embedder.ts';
export { LruCache } from './throughput/lru.ts';
export { MicroBatcher, type MicroBatcherOptions } from './throughput/micro-batcher.ts';
export {
  cosine,
  decodeVectorBase64,
  dot,
  encodeVectorBase64,
  fromLittleEndianBytes,
  l2Normalise,
  toLittleEndianBytes,
} from './vector.ts';
