import { env, loadConfig } from '@hindsight/config';
import { QueueNameSetting } from '@hindsight/jobs';
import { z } from 'zod';

/** Every environment variable the consolidation worker reads. The README's configuration table mirrors this. */
export const WorkerEnv = z
  .object({
    /** Health and metrics only (`/health`, `/ready`, `/metrics`). */
    HOST: z.string().default('127.0.0.1'),
    PORT: env.port(8003),
    LOG_LEVEL: env.logLevel(),
    /** The longest a SIGTERM/SIGINT shutdown takes: in-flight work gets most of it, then the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: env.shutdownTimeoutMs(),
    /** memory-api, the only way the worker reads and writes memories. */
    MEMORY_API_URL: z.string().default('http://127.0.0.1:8001'),
    /** memory-api's ADMIN_API_KEY: the worker acts for each job's tenant (X-Tenant-Id). */
    MEMORY_API_KEY: env.optionalString(),
    MEMORY_API_TIMEOUT_MS: env.int(30_000, 100),
    REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
    /** Same value as memory-api's: the queue's keys live under `<REDIS_PREFIX>:bull`. */
    REDIS_PREFIX: z.string().default('hindsight'),
    QUEUE_NAME: QueueNameSetting,
    WORKER_CONCURRENCY: env.int(2, 1, 64),
    /** A job whose worker stops renewing its lock this long is taken over by another worker. */
    WORKER_LOCK_MS: env.int(30_000, 1000),
    /** `rules` (offline), `llm` (needs LLM_BASE_URL and LLM_MODEL) or `auto` (llm when configured). */
    EXTRACTOR: z.enum(['auto', 'rules', 'llm']).default('auto'),
    LLM_BASE_URL: env.optionalString(),
    LLM_MODEL: env.optionalString(),
    LLM_API_KEY: env.optionalString(),
    LLM_TIMEOUT_MS: env.int(60_000, 100),
    LLM_MAX_CALLS_PER_JOB: env.int(4, 1, 100),
    LLM_MAX_TOKENS_PER_JOB: env.int(32_000, 100),
    LLM_CHARS_PER_CALL: env.int(24_000, 500),
    /** Register the repeatable decay and summarize jobs (one worker of a deployment is enough, more is harmless). */
    SCHEDULES_ENABLED: env.bool(true),
    DECAY_CRON: z.string().default('0 3 * * *'),
    SUMMARIZE_CRON: z.string().default('30 3 * * *'),
    /** Wait this long after a consolidation before refreshing the user's profile (bursts coalesce). */
    SUMMARY_DELAY_MS: env.int(5_000, 0),
  })
  .superRefine((config, ctx) => {
    if (config.EXTRACTOR === 'llm' && (!config.LLM_BASE_URL || !config.LLM_MODEL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['LLM_BASE_URL'],
        message: 'EXTRACTOR=llm needs LLM_BASE_URL and LLM_MODEL',
      });
    }
  });

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(source: Record<string, string | undefined> = process.env) {
  return loadConfig('consolidation-worker', WorkerEnv, source);
}
