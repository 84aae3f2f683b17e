import { jobOptions, parsePayload, queueKeyPrefix } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import { type Queue, Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { WorkerConfig } from './config.ts';
import type { WorkerDependencies } from './dependencies.ts';
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

/** The settings the worker itself reads (the rest of the configuration went into its dependencies). */
export type WorkerSettings = Pick<
  WorkerConfig,
  | 'QUEUE_NAME'
  | 'REDIS_PREFIX'
  | 'WORKER_CONCURRENCY'
  | 'WORKER_LOCK_MS'
  | 'SUMMARY_DELAY_MS'
  | 'DECAY_CRON'
  | 'SUMMARIZE_CRON'
>;

/** Builds the worker on its dependencies (dependencies.ts); main.ts starts the health server and handles signals. */
export function buildWorker(config: WorkerSettings, deps: WorkerDependencies, log: Logger): ConsolidationWorker {
  const { redis, queue, extractor } = deps;
  const prefix = queueKeyPrefix(config.REDIS_PREFIX);
  const metrics = createWorkerMetrics(() => queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed'));
  const processor = createProcessor({
    apiFor: deps.apiFor,
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
      { name: 'memory-api', check: () => deps.checkMemoryApi() },
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
      await deps.close();
    },
  };
}
