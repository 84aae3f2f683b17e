import { type Embedder, GuardedEmbedder } from '@hindsight/embedding';
import type { ReadinessCheck } from '@hindsight/http';
import { queueKeyPrefix } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import { createMetricsRegistry } from '@hindsight/metrics';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createEmbedderFromConfig } from './adapters/embedder.ts';
import { createContradictionJudge } from './adapters/llm/contradiction-judge.ts';
import { HindsightQueue } from './adapters/queue/hindsight-queue.ts';
import { IdempotencyCache } from './adapters/redis/idempotency.ts';
import { checkRedis, closeRedis, openProducerRedis, redisBacked } from './adapters/redis/outage.ts';
import { RedisOwnerLock } from './adapters/redis/owner-lock.ts';
import { RedisWorkingMemory } from './adapters/redis/working-memory.ts';
import { createMemoryStore } from './adapters/store/create-store.ts';
import type { MemoryApiConfig } from './config.ts';
import { ApiKeys } from './http/api-keys.ts';
import { DEFAULT_DECAY } from './maintenance/decay.ts';
import { RuleContradictionJudge } from './memory/contradiction.ts';
import { createMemoryService, type MemoryService } from './memory/service.ts';
import type { MemoryStore } from './memory/store-port.ts';
import {
  createMemoryApiMetrics,
  instrumentEmbedder,
  instrumentMemoryService,
  instrumentStore,
  type MemoryApiMetrics,
} from './observability/metrics.ts';
import { createUserService, type UserService } from './users/service.ts';
import type { HindsightDeps } from './working/port.ts';
import { WorkingMemorySearch } from './working/search.ts';
import { Sessions } from './working/sessions.ts';

/** Everything memory-api runs on, opened in order and closed in reverse. */
export interface Dependencies {
  memory: MemoryService;
  users: UserService;
  /** The ports the domain runs on, for what stands outside it (metrics, tests looking in). */
  store: MemoryStore;
  embedder: Embedder;
  keys: ApiKeys;
  redis: Redis;
  idempotency: IdempotencyCache;
  readiness: ReadinessCheck[];
  metrics: MemoryApiMetrics;
  /** Working memory, sessions and the consolidation queue. */
  hindsight: HindsightDeps;
  /** The BullMQ queue itself: the admin dashboard shows it (and tests look into it). */
  dashboardQueues: readonly Queue[];
  close(): Promise<void>;
}

export async function openDependencies(config: MemoryApiConfig, log: Logger): Promise<Dependencies> {
  const keys = ApiKeys.fromConfig(config);
  // Without Redis memory-api still starts: it serves what needs no Redis and says it is not ready.
  const redis = await openProducerRedis(config.REDIS_URL, log);
  const closers: Array<() => Promise<unknown>> = [];
  try {
    closers.push(() => closeRedis(redis));
    const rawEmbedder: Embedder = await createEmbedderFromConfig(config, log);
    closers.push(async () => rawEmbedder.close?.());
    const rawStore = createMemoryStore(config, log);
    await rawStore.open({ model: rawEmbedder.model, dimension: rawEmbedder.dimension });
    closers.push(() => rawStore.close());
    // Every store call, embed call, write outcome and search is measured from here on (GET /metrics).
    const metrics = createMemoryApiMetrics(createMetricsRegistry({ service: 'memory-api' }), rawStore);
    const store = instrumentStore(rawStore, metrics);
    // Every embed call waits a bounded time, and a failed or frozen embedder is not waited for
    // again until its cool-down: writes answer 503 at once meanwhile (searches use keywords).
    const embedder = new GuardedEmbedder(instrumentEmbedder(rawEmbedder, metrics), {
      deadlineMs: config.EMBED_DEADLINE_MS,
      cooldownMs: config.EMBED_COOLDOWN_MS,
      onLateFailure: (error) => log.warn({ err: error }, 'an embed call failed after its deadline'),
    });
    const queue = new HindsightQueue({
      connection: redis,
      queueName: config.QUEUE_NAME,
      keyPrefix: queueKeyPrefix(config.REDIS_PREFIX),
      retry: { attempts: config.JOB_ATTEMPTS, backoffMs: config.JOB_BACKOFF_MS },
      log,
    });
    closers.push(() => queue.close());
    const hindsight = openHindsight(config, redis, embedder, queue, log);
    const guard = { instructions: config.GUARD_INSTRUCTIONS, rawDumps: config.GUARD_RAW_DUMPS };
    const lock = redisBacked(
      new RedisOwnerLock(
        redis,
        config.REDIS_PREFIX,
        { leaseMs: config.OWNER_LOCK_LEASE_MS, waitMs: config.OWNER_LOCK_WAIT_MS },
        log,
      ),
      redis,
    );

    const memory = instrumentMemoryService(
      createMemoryService({
        store,
        embedder,
        judge: createContradictionJudge(config, new RuleContradictionJudge(), log),
        write: {
          mergeThreshold: config.MERGE_THRESHOLD,
          contradictionThreshold: config.CONTRADICTION_THRESHOLD,
          singleSourceModelConfidenceCap: 0.7,
          defaultConfidence: config.DEFAULT_CONFIDENCE,
        },
        search: {
          deadlineMs: config.SEARCH_DEADLINE_MS,
          candidateFactor: config.SEARCH_CANDIDATE_FACTOR,
          minScore: config.SEARCH_MIN_SCORE,
          queryEmbedding: { timeoutMs: config.SEARCH_EMBED_TIMEOUT_MS, cooldownMs: config.SEARCH_EMBED_COOLDOWN_MS },
          ranking: {
            denseWeight: config.RANK_DENSE_WEIGHT,
            keywordWeight: config.RANK_KEYWORD_WEIGHT,
            turnDenseWeight: config.RANK_TURN_DENSE_WEIGHT,
            agreement: config.RANK_AGREEMENT,
            keywordDominance: config.RANK_KEYWORD_DOMINANCE,
            backgroundSigmas: config.RANK_BACKGROUND_SIGMAS,
            wordAlignment: config.RANK_WORD_ALIGNMENT,
            relationAbout: config.RANK_RELATION_ABOUT,
            relationOther: config.RANK_RELATION_OTHER,
            relationOwner: config.RANK_RELATION_OWNER,
            askedKindMatch: config.RANK_ASKED_KIND_MATCH,
            confidence: config.RANK_CONFIDENCE_WEIGHT,
            recency: config.RANK_RECENCY_WEIGHT,
            recencyHalfLifeDays: config.RANK_RECENCY_DAYS,
            categoryWeights: config.RANK_CATEGORY_WEIGHTS,
          },
          dialogueFocus: { speakerMismatch: config.RANK_SPEAKER_MISMATCH, dateMismatch: config.RANK_DATE_MISMATCH },
          redundancy: { duplicateOverlap: config.RANK_DUPLICATE_OVERLAP, restateOverlap: config.RANK_RESTATE_OVERLAP },
        },
        guard,
        lock,
        log,
        session: hindsight.sessionSearch,
        working: hindsight.sessions,
        decay: { ...DEFAULT_DECAY, retentionDays: config.ARCHIVE_RETENTION_DAYS },
      }),
      metrics,
    );
    closers.push(() => memory.close());
    const idempotency = redisBacked(
      new IdempotencyCache(redis, config.REDIS_PREFIX, {
        ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
        waitMs: config.IDEMPOTENCY_WAIT_MS,
      }),
      redis,
    );
    const users = createUserService({
      store,
      embedder,
      guard,
      lock,
      working: hindsight.working,
      queue: hindsight.queue,
      replies: idempotency,
      settings: { jobWaitMs: config.ERASE_JOB_WAIT_MS },
      log,
    });
    return {
      memory,
      users,
      store,
      embedder,
      metrics,
      keys,
      redis,
      hindsight,
      dashboardQueues: [queue.queue],
      idempotency,
      readiness: [
        { name: 'store', check: () => store.check() },
        { name: 'embedder', check: () => embedder.check() },
        { name: 'redis', check: () => checkRedis(redis) },
      ],
      close: async () => {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) {
      await close().catch((cleanupError: unknown) =>
        log.warn({ err: cleanupError }, 'cleaning up after a failed start failed too'),
      );
    }
    redis.disconnect();
    throw error;
  }
}

/** Working memory, sessions and the queue producer: both Redis-backed parts answer 503 at once while Redis is away. */
function openHindsight(
  config: MemoryApiConfig,
  redis: Redis,
  embedder: Embedder,
  queue: HindsightQueue,
  log: Logger,
): HindsightDeps {
  const working = redisBacked(new RedisWorkingMemory(redis, config.REDIS_PREFIX, config.WORKING_TTL_SECONDS), redis);
  const guardedQueue = redisBacked(queue, redis);
  const sessions = new Sessions({
    working,
    queue: guardedQueue,
    settings: { idleSeconds: config.SESSION_IDLE_SECONDS, maxTurns: config.WORKING_MAX_TURNS },
    log,
  });
  const sessionSearch = new WorkingMemorySearch(working, embedder, {
    maxTurns: config.WORKING_SEARCH_TURNS,
    minSimilarity: 0.35,
  });
  return { working, queue: guardedQueue, sessions, sessionSearch };
}
