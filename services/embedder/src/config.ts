import { env, loadConfig } from '@hindsight/config';
import { checkEmbeddingEnv, DEFAULT_REDIS_CACHE_ENTRIES, EmbeddingEnv } from '@hindsight/embedding';
import { z } from 'zod';

/**
 * The embedder service's environment, parsed once at boot. Every variable, its default and
 * meaning is listed here (the EMBEDDINGS_* ones in shared/embedding's `EmbeddingEnv`, which
 * memory-api shares); the README's configuration table is written from this schema.
 */
export const embedderConfigSchema = z
  .object({
    /** Interface to bind; loopback unless deployed behind a network boundary. */
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: env.port(8002),
    LOG_LEVEL: env.logLevel(),
    /** The longest a SIGTERM/SIGINT shutdown takes: in-flight work gets most of it, then the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: env.shutdownTimeoutMs(),
    ...EmbeddingEnv.shape,
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
  .superRefine(checkEmbeddingEnv);

export type EmbedderConfig = Readonly<z.output<typeof embedderConfigSchema>>;

export function loadEmbedderConfig(source: Record<string, string | undefined> = process.env): EmbedderConfig {
  return loadConfig('embedder', embedderConfigSchema, source);
}
