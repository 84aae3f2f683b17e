import { queueKeyPrefix } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import { MemoryApiClient } from '@hindsight/memory-client';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { WorkerConfig } from './config.ts';
import { createExtractor } from './extraction/create.ts';
import type { Extractor } from './extraction/port.ts';

/** What the worker runs on. `openWorkerDependencies` builds the real ones; a test may build its own. */
export interface WorkerDependencies {
  /** The connection BullMQ's worker blocks on (it waits out outages: no per-request retry limit). */
  redis: Redis;
  /** The worker's own producer on the same queue: profile refreshes, the schedules. */
  queue: Queue;
  /** memory-api acting for a tenant; with a job id, every call names the job (the erasure fence). */
  apiFor(tenant?: string, jobId?: string): MemoryApiClient;
  extractor: Extractor;
  /** memory-api answers `/health` now (the worker's readiness). */
  checkMemoryApi(): Promise<void>;
  /** Closes the queue, then Redis. */
  close(): Promise<void>;
}

/** The composition root: the real Redis, queue, memory-api client and extractor from the configuration. */
export function openWorkerDependencies(config: WorkerConfig, log: Logger): WorkerDependencies {
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, enableReadyCheck: true });
  redis.on('error', (error) => log.error({ err: error }, 'redis connection error'));
  const queue = new Queue(config.QUEUE_NAME, { connection: redis, prefix: queueKeyPrefix(config.REDIS_PREFIX) });
  queue.on('error', (error) => log.error({ err: error }, 'queue error'));
  const memoryApiHealth = `${config.MEMORY_API_URL.replace(/\/+$/, '')}/health`;
  return {
    redis,
    queue,
    apiFor: (tenant, jobId) =>
      new MemoryApiClient({
        baseUrl: config.MEMORY_API_URL,
        timeoutMs: config.MEMORY_API_TIMEOUT_MS,
        ...(config.MEMORY_API_KEY ? { apiKey: config.MEMORY_API_KEY } : {}),
        ...(tenant ? { tenant } : {}),
        ...(jobId ? { jobId } : {}),
      }),
    extractor: createExtractor(config),
    async checkMemoryApi() {
      const response = await fetch(memoryApiHealth, { signal: AbortSignal.timeout(2000) });
      if (!response.ok) throw new Error(`memory-api /health answered ${response.status}`);
    },
    async close() {
      await queue.close();
      await redis.quit();
    },
  };
}
