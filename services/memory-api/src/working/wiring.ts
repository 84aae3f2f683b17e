import type { Embedder } from '@hindsight/embedding';
import { queueKeyPrefix } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import type { Redis } from 'ioredis';
import { HindsightQueue } from '../adapters/queue/hindsight-queue.ts';
import { redisBacked } from '../adapters/redis/outage.ts';
import { RedisWorkingMemory } from '../adapters/redis/working-memory.ts';
import type { MemoryApiConfig } from '../config.ts';
import { WorkingMemorySearch } from './search.ts';
import { Sessions } from './sessions.ts';

/** Working memory, sessions and the hindsight queue producer, as memory-api runs them. */
export interface HindsightDeps {
  working: RedisWorkingMemory;
  queue: HindsightQueue;
  sessions: Sessions;
  /** The read path's candidate source for the current session. */
  sessionSearch: WorkingMemorySearch;
}

export function openHindsight(config: MemoryApiConfig, redis: Redis, embedder: Embedder, log: Logger): HindsightDeps {
  // Both answer 503 dependency_unavailable at once while Redis is away.
  const working = redisBacked(new RedisWorkingMemory(redis, config.REDIS_PREFIX, config.WORKING_TTL_SECONDS), redis);
  const queue = redisBacked(
    new HindsightQueue({
      connection: redis,
      queueName: config.QUEUE_NAME,
      keyPrefix: queueKeyPrefix(config.REDIS_PREFIX),
      retry: { attempts: config.JOB_ATTEMPTS, backoffMs: config.JOB_BACKOFF_MS },
      log,
    }),
    redis,
  );
  const sessions = new Sessions({
    working,
    queue,
    settings: { idleSeconds: config.SESSION_IDLE_SECONDS, maxTurns: config.WORKING_MAX_TURNS },
    log,
  });
  const sessionSearch = new WorkingMemorySearch(working, embedder, {
    maxTurns: config.WORKING_SEARCH_TURNS,
    minSimilarity: 0.35,
  });
  return { working, queue, sessions, sessionSearch };
}
