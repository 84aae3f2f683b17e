import { jobOptions, parsePayload, queueKeyPrefix } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import { MemoryApiClient } from '@hindsight/memory-client';
import { Queue, Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { WorkerConfig } from './config.ts';
import { createExtractor } from './extraction/create.ts';
import { buildHealthServer } from './http/health.ts';
import { createProcessor } from './jobs/processor.ts';
import { createWorkerMetrics } from './metrics.ts';

export interface ConsolidationWorker {
  worker: Worker;
  queue: Queue;
  health: FastifyInstance;
  /** Registers the repeatable decay and summarize jobs. */
  schedule(): Promise<void>;
  /** Stops taking jobs, lets running ones finish, then closes the queue and Redis. */
  close(): Promise<void>;
}

/** Builds the worker from its configuration; main.ts starts the health server and handles signals. */
export function buildWorker(config: WorkerConfig, log: Logger): ConsolidationWorker {
  // Workers wait out a Redis outage (BullMQ's blocking commands need no per-request retry limit).
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, enableReadyCheck: true });
  redis.on('error', (error) => log.error({ err: error }, 'redis connection error'));
  const prefix = queueKeyPrefix(config.REDIS_PREFIX);
  const queue = new Queue(config.QUEUE_NAME, { connection: redis, prefix });
  queue.on('error', (error) => log.error({ err: error }, 'queue error'));

  const apiFor = (tenant?: string, jobId?: string) =>
    new MemoryApiClient({
      baseUrl: config.MEMORY_API_URL,
      timeoutMs: config.MEMORY_API_TIMEOUT_MS,
      ...(config.MEMORY_API_KEY ? { apiKey: config.MEMORY_API_KEY } : {}),
      ...(tenant ? { tenant } : {}),
      ...(jobId ? { jobId } : {}),
    });
  const metrics = createWorkerMetrics(() => queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed'));
  const extractor = createExtractor(config);
  const processor = createProcessor({
    apiFor,
    extractor,
    queue,
    summaryDelayMs: config.SUMMARY_DELAY_MS,
    metrics,
    log,
  });

  const worker = new Worker(config.QUEUE_NAME, processor, {
    connection: redis,
    prefix,
    concurrency: config.WORKER_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_MS,
    stalledInterval: config.WORKER_LOCK_MS,
    autorun: false,
  });
  worker.on('error', (error) => log.error({ err: error }, 'worker error'));
  worker.on('failed', (job, error) =>
    log.warn(
      { jobId: job?.id, job: job?.name, attempts: job?.attemptsMade, reason: error.message },
      'job attempt failed',
    ),
  );
  worker.on('completed', (job) => log.info({ jobId: job.id, job: job.name }, 'job completed'));

  const health = buildHealthServer(
    [
      { name: 'redis', check: async () => void (await redis.ping()) },
      {
        name: 'worker',
        check: async () => {
          if (!worker.isRunning()) throw new Error('worker loop is not running');
        },
      },
      {
        name: 'memory-api',
        check: async () => {
          const response = await fetch(`${config.MEMORY_API_URL.replace(/\/+$/, '')}/health`, {
            signal: AbortSignal.timeout(2000),
          });
          if (!response.ok) throw new Error(`memory-api /health answered ${response.status}`);
        },
      },
    ],
    metrics.registry,
  );

  log.info(
    { extractor: extractor.name, queue: config.QUEUE_NAME, prefix, concurrency: config.WORKER_CONCURRENCY },
    'worker built',
  );
  return {
    worker,
    queue,
    health,
    async schedule() {
      await queue.upsertJobScheduler(
        'decay-daily',
        { pattern: config.DECAY_CRON },
        { name: 'decay', data: parsePayload('decay', {}), opts: jobOptions('decay') },
      );
      await queue.upsertJobScheduler(
        'summarize-daily',
        { pattern: config.SUMMARIZE_CRON },
        { name: 'summarize', data: parsePayload('summarize', { recent_hours: 24 }), opts: jobOptions('summarize') },
      );
    },
    async close() {
      await worker.close();
      await queue.close();
      await redis.quit();
    },
  };
}
