import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { env, loadConfig } from '@hindsight/config';
import { checkEmbeddingEnv, EmbeddingEnv } from '@hindsight/embedding';
import { QueueNameSetting } from '@hindsight/jobs';
import { z } from 'zod';
import { DEFAULT_KEYWORD_RANKING } from './adapters/store/keywords.ts';
import { DEFAULT_TURN_CONTEXT } from './adapters/store/turn-context.ts';
import { DEFAULT_DECAY } from './maintenance/decay.ts';
import { DEFAULT_DIALOGUE_FOCUS } from './memory/dialogue-focus.ts';
import { DEFAULT_RANKING } from './memory/ranking.ts';
import { DEFAULT_REDUNDANCY } from './memory/redundancy.ts';

// The defaults of ranking and decay live beside the code that uses them; the variables take them from there.

/** Every environment variable memory-api reads. The README's configuration table mirrors this. */
export const MemoryApiEnv = z
  .object({
    HOST: z.string().default('127.0.0.1'),
    PORT: env.port(8001),
    LOG_LEVEL: env.logLevel(),
    /** The longest a SIGTERM/SIGINT shutdown takes: in-flight work gets most of it, then the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: env.shutdownTimeoutMs(),
    DATA_DIR: z.string().default('./data'),
    /**
     * Worker threads answering the embedded store's reads, each with its own read-only connection
     * (0 = every read on the serving connection, in the event loop). Default: one per core. The
     * event loop's own share of a search is small (HTTP, scoring), so with a worker fewer than
     * cores one core idled under load: on 2 cores, 1 worker gave 16 clients 1.2–1.6× one client's
     * throughput, 2 workers 2.1×.
     */
    SQLITE_READ_WORKERS: env.int(Math.max(1, availableParallelism()), 0, 64),
    /** Page cache of each embedded-store connection (the serving one, each read worker's, the access worker's), MiB. */
    SQLITE_CACHE_MIB: env.int(8, 1, 65_536),
    /** How much of the store's file each searching connection maps, MiB (0 = read through the page cache only). */
    SQLITE_MMAP_MIB: env.int(0, 0, 65_536),
    /** `tenant:key,tenant:key`. */
    API_KEYS: env.optionalString(),
    /** A file with one `tenant:key` per line (secrets mounted by compose). */
    API_KEYS_FILE: env.optionalString(),
    ADMIN_API_KEY: env.optionalString(),
    REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
    /** Prefix of every Redis key this deployment owns (working memory, idempotency, queue). */
    REDIS_PREFIX: z.string().default('hindsight'),
    VECTOR_STORE: z.enum(['sqlite', 'qdrant', 'postgres']).default('sqlite'),
    /** PostgreSQL with pgvector (VECTOR_STORE=postgres): `postgres://user:password@host:5432/database`. */
    DATABASE_URL: env.optionalString(),
    /** The schema hindsight's tables live in (created when missing). */
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier (letters, digits, _; at most 63)')
      .default('hindsight'),
    /** Connections one memory-api process keeps open at most. */
    DATABASE_POOL_SIZE: env.int(10, 1, 1000),
    /** The server cancels a statement running longer than this. */
    DATABASE_STATEMENT_TIMEOUT_MS: env.int(5000, 100),
    /** TLS to PostgreSQL: disable, require (encrypted, server not verified) or verify-full; unset → DATABASE_URL's sslmode. */
    DATABASE_SSL: z.enum(['disable', 'require', 'verify-full']).optional(),
    /** CA certificate (PEM file) that verify-full checks the server against; the system CAs when unset. */
    DATABASE_SSL_CA_FILE: env.optionalString(),
    QDRANT_URL: env.optionalString(),
    QDRANT_API_KEY: env.optionalString(),
    QDRANT_COLLECTION_PREFIX: z.string().default('hindsight'),
    /** The embedder service; unset → embed in process. */
    EMBEDDER_URL: env.optionalString(),
    /** The in-process provider (EMBEDDINGS_PROVIDER, _MODEL, _DIM, _TIMEOUT_MS, …): the same variables as the embedder service's. */
    ...EmbeddingEnv.shape,
    EMBED_CACHE_SIZE: env.int(4096, 0),
    /**
     * How long a write (and every embed call but a search's) waits for the vectors of up to 64
     * texts; larger calls get as many times that. Past it the write answers 503 and the embedder
     * is skipped (503 at once) for EMBED_COOLDOWN_MS, after which one call tries again.
     */
    EMBED_DEADLINE_MS: env.int(3000, 10, 600_000),
    EMBED_COOLDOWN_MS: env.int(5000, 0, 3_600_000),
    MERGE_THRESHOLD: env.number(0.92, 0, 1),
    CONTRADICTION_THRESHOLD: env.number(0.3, 0, 1),
    DEFAULT_CONFIDENCE: env.number(0.9, 0, 1),
    GUARD_INSTRUCTIONS: z.enum(['reject', 'quarantine']).default('reject'),
    GUARD_RAW_DUMPS: z.enum(['reject', 'quarantine']).default('reject'),
    /** Dense and keyword relevance (each 0..1) are scaled by these and fused: the stronger decides. */
    RANK_DENSE_WEIGHT: env.number(DEFAULT_RANKING.denseWeight, 0, 1),
    RANK_KEYWORD_WEIGHT: env.number(DEFAULT_RANKING.keywordWeight, 0, 1),
    /** Dense weight of an episodic turn of a session, times RANK_DENSE_WEIGHT (word vectors say less about dialogue turns). */
    RANK_TURN_DENSE_WEIGHT: env.number(DEFAULT_RANKING.turnDenseWeight, 0, 1),
    /** The weaker evidence adds this share of itself (agreement of dense and keyword). */
    RANK_AGREEMENT: env.number(DEFAULT_RANKING.agreement, 0, 1),
    /** A strong keyword match among the candidates discounts dense-only evidence by this share of it. */
    RANK_KEYWORD_DOMINANCE: env.number(DEFAULT_RANKING.keywordDominance, 0, 1),
    /** Dense relevance counts similarity above the query's background: mean + this many σ of its cosine to unrelated text. */
    RANK_BACKGROUND_SIGMAS: env.number(DEFAULT_RANKING.backgroundSigmas, 0, 10),
    /** Weight of a fact's word alignment with the query against its cosine (built-in embedder; 0: off). */
    RANK_WORD_ALIGNMENT: env.number(DEFAULT_RANKING.wordAlignment, 0, 10),
    /** A question about a relative: a fact about them counts this share more, one about another relative only this share less. */
    RANK_RELATION_ABOUT: env.number(DEFAULT_RANKING.relationAbout, 0, 2),
    RANK_RELATION_OTHER: env.number(DEFAULT_RANKING.relationOther, 0, 1),
    /** A question naming no relative: a fact about a relative counts this share less. */
    RANK_RELATION_OWNER: env.number(DEFAULT_RANKING.relationOwner, 0, 1),
    /** A question asking what someone does for a living or what unpaid work: a fact stating it has at least this relevance (0: off). */
    RANK_ASKED_KIND_MATCH: env.number(DEFAULT_RANKING.askedKindMatch, 0, 1),
    /** Shares of the score's adjustment by confidence and recency (the rest is relevance alone). */
    RANK_CONFIDENCE_WEIGHT: env.number(DEFAULT_RANKING.confidence, 0, 0.5),
    RANK_RECENCY_WEIGHT: env.number(DEFAULT_RANKING.recency, 0, 0.5),
    RANK_RECENCY_DAYS: env.number(DEFAULT_RANKING.recencyHalfLifeDays, 0.001),
    /** Word overlap (Jaccard) at which two results count as the same; share of a fact's words that makes a summary restate it. */
    RANK_DUPLICATE_OVERLAP: env.number(DEFAULT_REDUNDANCY.duplicateOverlap, 0, 1),
    RANK_RESTATE_OVERLAP: env.number(DEFAULT_REDUNDANCY.restateOverlap, 0, 1),
    /** JSON object, e.g. `{"preference":1.2,"commitment":1.3,"decision":1.1}`. */
    RANK_CATEGORY_WEIGHTS: z
      .string()
      .default(JSON.stringify(DEFAULT_RANKING.categoryWeights))
      .transform((raw, ctx) => {
        try {
          const parsed = z.record(z.string(), z.number().min(0)).parse(JSON.parse(raw));
          return parsed;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON object of category → non-negative number' });
          return z.NEVER;
        }
      }),
    /**
     * Dialogue focus: when a question names one speaker of the conversation turns found, the
     * other speakers' turns lose this share of their relevance; when it names a day, turns said
     * on none near it (that day or the two after) lose this share.
     */
    RANK_SPEAKER_MISMATCH: env.number(DEFAULT_DIALOGUE_FOCUS.speakerMismatch, 0, 1),
    RANK_DATE_MISMATCH: env.number(DEFAULT_DIALOGUE_FOCUS.dateMismatch, 0, 1),
    /** BM25 of the keyword index: term-frequency saturation and length normalisation. */
    RANK_BM25_K1: env.number(DEFAULT_KEYWORD_RANKING.k1, 0),
    RANK_BM25_B: env.number(DEFAULT_KEYWORD_RANKING.b, 0, 1),
    /** How much a query word common in English ("work", "old", "part") loses of its keyword weight, 0..1. */
    RANK_COMMON_WORD_DISCOUNT: env.number(DEFAULT_KEYWORD_RANKING.commonWordDiscount, 0, 1),
    /** Turn context: how many turns before and after an episodic turn of a session are indexed with it. */
    TURN_CONTEXT_BEFORE: env.int(DEFAULT_TURN_CONTEXT.before, 0, 10),
    TURN_CONTEXT_AFTER: env.int(DEFAULT_TURN_CONTEXT.after, 0, 10),
    /** How much a neighbouring turn's word counts against the turn's own (0 = context off in ranking). */
    RANK_TURN_CONTEXT_WEIGHT: env.number(DEFAULT_KEYWORD_RANKING.contextWeight, 0, 1),
    SEARCH_DEADLINE_MS: env.int(3000, 1),
    /** `min_score` of a search that sends none: results below it are not relevant enough to return. */
    SEARCH_MIN_SCORE: env.number(0.03, 0, 1),
    /** A search waits this long for its query vector, then answers keyword results with `dense_skipped`. */
    SEARCH_EMBED_TIMEOUT_MS: env.int(1000, 1),
    /** After the embedder failed or timed out, searches skip it this long before one tries again. */
    SEARCH_EMBED_COOLDOWN_MS: env.int(5000, 0),
    SEARCH_CANDIDATE_FACTOR: env.int(4, 1, 50),
    BODY_LIMIT_BYTES: env.int(4 * 1024 * 1024, 1024),
    /** Largest `POST /v1/import` body (NDJSON, streamed line by line, not bound by BODY_LIMIT_BYTES). */
    IMPORT_MAX_BYTES: env.int(256 * 1024 * 1024, 1024),
    /**
     * Requests per minute per API key and replica; 0 turns the limit off. One application usually
     * holds one key for all its users, so the default (5,000/s) only stops a runaway client: a
     * 2-core replica answers fewer than that.
     */
    RATE_LIMIT_PER_MINUTE: env.int(300_000, 0),
    IDEMPOTENCY_TTL_SECONDS: env.int(86_400, 60),
    /** User erasure: how long `DELETE /v1/users/:id` waits for the user's running jobs (their writes are refused). */
    ERASE_JOB_WAIT_MS: env.int(30_000, 0, 600_000),
    /** A twin request with the same Idempotency-Key waits this long for the first one's answer (then 409). */
    IDEMPOTENCY_WAIT_MS: env.int(30_000, 100),
    /** Per-user write lock in Redis (shared by every replica): lease of a holder that stopped renewing. */
    OWNER_LOCK_LEASE_MS: env.int(5000, 100),
    /** How long a write waits for another write of the same user before answering 503 busy. */
    OWNER_LOCK_WAIT_MS: env.int(10_000, 10),
    /**
     * Host headers `/mcp` answers (DNS-rebinding protection), comma-separated `host` or
     * `host:port`; unset → the loopback names with the listening port; `*` turns the check off.
     */
    MCP_ALLOWED_HOSTS: env.optionalString(),
    /** Working memory: a session's turns expire this long after its last write. */
    WORKING_TTL_SECONDS: env.int(7200, 60),
    /** Consolidate a session this long after its last turn (debounced); 0 = only on end or size. */
    SESSION_IDLE_SECONDS: env.int(1800, 0),
    /** Consolidate as soon as this many turns wait in a session; 0 = no size trigger. */
    WORKING_MAX_TURNS: env.int(200, 0),
    /** Newest turns of the session searched by `/retrieve` with `session_id`. */
    WORKING_SEARCH_TURNS: env.int(100, 1, 1000),
    /** BullMQ queue of the hindsight jobs (its keys live under `<REDIS_PREFIX>:bull`). */
    QUEUE_NAME: QueueNameSetting,
    /** Attempts and first backoff of consolidation jobs (later backoffs double). */
    JOB_ATTEMPTS: env.int(5, 1, 50),
    JOB_BACKOFF_MS: env.int(5000, 10),
    /** Decay: archived memories are deleted this many days after archiving. */
    ARCHIVE_RETENTION_DAYS: env.int(DEFAULT_DECAY.retentionDays, 1),
    /** An OpenAI-compatible chat endpoint; when set with LLM_MODEL it judges contradictions on write. */
    LLM_BASE_URL: env.optionalString(),
    LLM_MODEL: env.optionalString(),
    LLM_API_KEY: env.optionalString(),
    LLM_TIMEOUT_MS: env.int(10_000, 100),
  })
  .superRefine((config, ctx) => {
    // Cross-field rules: each names the variable to set, like the per-field problems.
    // The in-process provider's settings matter only without the embedder service.
    if (config.EMBEDDER_URL === undefined) checkEmbeddingEnv(config, ctx);
    if (config.VECTOR_STORE === 'qdrant' && config.QDRANT_URL === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['QDRANT_URL'],
        message: 'is required when VECTOR_STORE=qdrant (e.g. http://qdrant:6333)',
      });
    }
    if (config.VECTOR_STORE === 'postgres' && config.DATABASE_URL === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message: 'is required when VECTOR_STORE=postgres (e.g. postgres://hindsight:secret@postgres:5432/hindsight)',
      });
    }
    if (config.DATABASE_SSL !== undefined && /[?&]sslmode=/.test(config.DATABASE_URL ?? '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_SSL'],
        message: 'and sslmode in DATABASE_URL both set TLS: keep one of them',
      });
    }
    if (config.DATABASE_SSL_CA_FILE !== undefined && config.DATABASE_SSL !== 'verify-full') {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_SSL_CA_FILE'],
        message: 'is used only with DATABASE_SSL=verify-full',
      });
    }
  });

export type MemoryApiConfig = ReturnType<typeof loadMemoryApiConfig>;

export function loadMemoryApiConfig(source: Record<string, string | undefined> = process.env) {
  const parsed = loadConfig('memory-api', MemoryApiEnv, source);
  return Object.freeze({
    ...parsed,
    DATABASE_PATH: join(parsed.DATA_DIR, 'memory.db'),
  });
}
