import { env } from '@hindsight/config';
import { z } from 'zod';
import { BUILTIN_MODELS, isBuiltinModel } from './builtin/models.ts';
import type { ProviderSettings } from './factory.ts';

/**
 * The `EMBEDDINGS_*` variables of every service that embeds (the embedder service, memory-api
 * embedding in process): one name, meaning, default and check each. A service's config schema
 * spreads `EmbeddingEnv.shape` and runs `checkEmbeddingEnv` in its `superRefine`.
 */
export const EmbeddingEnv = z.object({
  /** `builtin`: offline embedder; `openai`: any OpenAI-compatible /v1/embeddings server. */
  EMBEDDINGS_PROVIDER: z.enum(['builtin', 'openai']).default('builtin'),
  /** Vector dimension. builtin: 512 when unset. openai: learned by one probe call when unset. */
  EMBEDDINGS_DIM: z.coerce.number().int().min(8).max(8192).optional(),
  /** openai only: base URL including /v1, e.g. http://127.0.0.1:11434/v1 for Ollama. */
  EMBEDDINGS_BASE_URL: env.optionalString().pipe(z.url().optional()),
  /**
   * openai: the provider's model name, e.g. text-embedding-3-small, nomic-embed-text.
   * builtin: `builtin-v11` (default: word vectors without light verbs and names, stand-ins for the
   * words the table lacks, answer kinds with WordNet and its derived forms, faith and charity work
   * among them, ages read from numbers of years, Chinese words + lexical features), or the models of
   * earlier releases `builtin-v10` (no stand-ins for unknown words, fewer phrases), `builtin-v9` (no
   * faith or charity kinds, no age phrases), `builtin-v8` (no derived forms, names read as words), `builtin-v7` (seven answer
   * kinds fewer, no inflections of listed words), `builtin-v6` (light verbs
   * weighed like other words), `builtin-v5` (five answer kinds fewer),
   * `builtin-v4` (answer kinds without WordNet),
   * `builtin-v3` (word vectors + lexical) and `builtin-v2` (lexical only).
   */
  EMBEDDINGS_MODEL: env.optionalString(),
  /** builtin: directory of the word tables derived from the npm word vectors and dictionary on first use (default node_modules/.cache/hindsight-embedding). */
  EMBEDDINGS_WORD_TABLE_DIR: env.optionalString(),
  /** openai only: API key, sent as a bearer token; local servers need none. */
  EMBEDDINGS_API_KEY: env.optionalString(),
  /** Per-request timeout of the provider (openai) or of the embedder service (memory-api's EMBEDDER_URL). */
  EMBEDDINGS_TIMEOUT_MS: env.int(10_000, 100, 600_000),
  /** openai only: retries on 429/5xx/timeouts, with exponential backoff. */
  EMBEDDINGS_RETRIES: env.int(3, 0, 10),
  /** openai only: consecutive failed calls that open the circuit breaker, and its cool-down. */
  EMBEDDINGS_BREAKER_THRESHOLD: env.int(5, 1, 1000),
  EMBEDDINGS_BREAKER_COOLDOWN_MS: env.int(30_000, 100, 3_600_000),
});
export type EmbeddingEnv = z.output<typeof EmbeddingEnv>;

/** The cross-field rules of `EmbeddingEnv`, each naming the variable to set. */
export function checkEmbeddingEnv(config: EmbeddingEnv, ctx: z.RefinementCtx): void {
  if (config.EMBEDDINGS_PROVIDER === 'builtin') {
    if (config.EMBEDDINGS_MODEL !== undefined && !isBuiltinModel(config.EMBEDDINGS_MODEL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['EMBEDDINGS_MODEL'],
        message: `the builtin provider serves ${BUILTIN_MODELS.join(' or ')}, not "${config.EMBEDDINGS_MODEL}"`,
      });
    }
    return;
  }
  for (const name of ['EMBEDDINGS_BASE_URL', 'EMBEDDINGS_MODEL'] as const) {
    if (!config[name])
      ctx.addIssue({ code: 'custom', path: [name], message: 'required when EMBEDDINGS_PROVIDER=openai' });
  }
}

/**
 * The one mapping from those variables to provider settings: the embedder service at `embedderUrl`
 * when one is given (memory-api's EMBEDDER_URL), else the provider they name, in process.
 */
export function providerSettingsFromEnv(config: EmbeddingEnv, embedderUrl?: string): ProviderSettings {
  if (embedderUrl) return { provider: 'remote', url: embedderUrl, timeoutMs: config.EMBEDDINGS_TIMEOUT_MS };
  if (config.EMBEDDINGS_PROVIDER === 'openai') {
    const { EMBEDDINGS_BASE_URL: baseUrl, EMBEDDINGS_MODEL: model } = config;
    // checkEmbeddingEnv refuses this at start; a caller that skipped it gets the same words.
    if (!baseUrl || !model)
      throw new Error('EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL');
    return {
      provider: 'openai',
      baseUrl,
      model,
      apiKey: config.EMBEDDINGS_API_KEY,
      dimension: config.EMBEDDINGS_DIM,
      timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
      retries: config.EMBEDDINGS_RETRIES,
      breakerThreshold: config.EMBEDDINGS_BREAKER_THRESHOLD,
      breakerCooldownMs: config.EMBEDDINGS_BREAKER_COOLDOWN_MS,
      providerName: `openai-compatible embeddings at ${baseUrl}`,
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
