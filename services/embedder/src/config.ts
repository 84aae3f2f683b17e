import { env, loadConfig } from '@hindsight/config';
import { BUILTIN_MODELS, DEFAULT_REDIS_CACHE_ENTRIES, isBuiltinModel } from '@hindsight/embedding';
import { z } from 'zod';

/**
 * The embedder service's environment, parsed once at boot. Every variable, its default and
 * meaning is listed here; the README's configuration table is written from this schema.
 */
export const embedderConfigSchema = z
  .object({
    /** Interface to bind; loopback unless deployed behind a network boundary. */
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: env.port(8002),
    LOG_LEVEL: env.logLevel(),
    /** The longest a SIGTERM/SIGINT shutdown takes: in-flight work gets most of it, then the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: env.shutdownTimeoutMs(),
    /** `builtin`: offline hashing embedder; `openai`: any OpenAI-compatible /v1/embeddings server. */
    EMBEDDINGS_PROVIDER: z.enum(['builtin', 'openai']).default('builtin'),
    /** Vector dimension. builtin: defaults to 512. openai: learned by one probe call when unset. */
    EMBEDDINGS_DIM: z.coerce.number().int().min(8).max(8192).optional(),
    /** openai only: base URL including /v1, e.g. http://127.0.0.1:11434/v1 for Ollama. */
    EMBEDDINGS_BASE_URL: env.optionalString().pipe(z.url().optional()),
    /**
     * openai: the provider's model name, e.g. text-embedding-3-small, nomic-embed-text.
     * builtin: `builtin-v3` (default: word vectors + lexical features) or `builtin-v2` (lexical only, earlier releases).
     */
    EMBEDDINGS_MODEL: env.optionalString(),
    /** builtin: directory of the word table derived from the npm word vectors on first use (default node_modules/.cache/hindsight-embedding). */
    EMBEDDINGS_WORD_TABLE_DIR: env.optionalString(),
    /** openai only: API key, sent as a bearer token; local servers need none. */
    EMBEDDINGS_API_KEY: env.optionalString(),
    /** openai only: per-request timeout. */
    EMBEDDINGS_TIMEOUT_MS: env.int(10_000, 100, 600_000),
    /** openai only: retries on 429/5xx/timeouts, with exponential backoff. */
    EMBEDDINGS_RETRIES: env.int(3, 0, 10),
    /** openai only: consecutive failed calls that open the circuit breaker, and its cool-down. */
    EMBEDDINGS_BREAKER_THRESHOLD: env.int(5, 1, 1000),
    EMBEDDINGS_BREAKER_COOLDOWN_MS: env.int(30_000, 100, 3_600_000),
    /** openai only: most texts per provider call after micro-batching concurrent requests. */
    EMBED_BATCH_SIZE: env.int(64, 1, 2048),
    /** openai only: longest a text waits for others to fill a batch; 0 turns micro-batching off. */
    EMBED_BATCH_WAIT_MS: env.int(5, 0, 1000),
    /** Vectors kept in the in-process LRU cache; 0 turns it off. */
    EMBED_CACHE_SIZE: env.int(10_000, 0, 10_000_000),
    /** Optional shared cache: Redis URL (vectors stored as float32 bytes keyed by model + sha256(text)). */
    REDIS_URL: env.optionalString().pipe(z.url().optional()),
    /** Prefix of the Redis cache keys (several deployments can share one Redis). */
    EMBED_CACHE_REDIS_PREFIX: z.string().min(1).default('hindsight:emb:'),
    /** Expiry of Redis cache entries. */
    EMBED_CACHE_TTL_SECONDS: env.int(7 * 24 * 3600, 1, 365 * 24 * 3600),
    /** Most vectors in the Redis cache (fixed hash slots: the key count never grows past it). */
    EMBED_CACHE_REDIS_MAX_ENTRIES: env.int(DEFAULT_REDIS_CACHE_ENTRIES, 1, 100_000_000),
    /** No cache writes while Redis uses more than this share of its maxmemory (it holds the queue too). */
    EMBED_CACHE_REDIS_MEMORY_CEILING: env.number(0.8, 0, 1),
    /** Request limits: texts per POST /embed and characters per text. */
    EMBED_MAX_TEXTS: env.int(256, 1, 4096),
    EMBED_MAX_TEXT_CHARS: env.int(8000, 1, 1_000_000),
  })
  .superRefine((config, ctx) => {
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
    if (!config.EMBEDDINGS_BASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['EMBEDDINGS_BASE_URL'],
        message: 'required when EMBEDDINGS_PROVIDER=openai',
      });
    }
    if (!config.EMBEDDINGS_MODEL) {
      ctx.addIssue({ code: 'custom', path: ['EMBEDDINGS_MODEL'], message: 'required when EMBEDDINGS_PROVIDER=openai' });
    }
  });

export type EmbedderConfig = Readonly<z.output<typeof embedderConfigSchema>>;

export function loadEmbedderConfig(source: Record<string, string | undefined> = process.env): EmbedderConfig {
  return loadConfig('embedder', embedderConfigSchema, source);
}
