import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobStatus } from '@hindsight/jobs';
import { createLogger } from '@hindsight/logger';
import { MemoryApiClient } from '@hindsight/memory-client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../memory-api/src/app.ts';
import { loadMemoryApiConfig } from '../../../memory-api/src/config.ts';
import { type Dependencies, openDependencies } from '../../../memory-api/src/dependencies.ts';
import { type ServiceProcess, spawnService } from '../../../memory-api/test/support/process.ts';

export const KEYS = { API_KEYS: 'acme:key-acme,globex:key-globex', ADMIN_API_KEY: 'key-admin' };

export interface Stack {
  api: FastifyInstance;
  deps: Dependencies;
  url: string;
  /** memory-api's DATA_DIR (the SQLite file is `memory.db` in it). */
  dataDir: string;
  redisPrefix: string;
  queueName: string;
  /** The acme tenant's client. */
  client: MemoryApiClient;
  workers: ServiceProcess[];
  startWorker(env?: Record<string, string>): Promise<ServiceProcess>;
  waitForJob(jobId: string, states: readonly JobStatus['state'][], timeoutMs?: number): Promise<JobStatus>;
  close(): Promise<void>;
}

export interface StackOptions {
  apiEnv?: Record<string, string>;
  workerEnv?: Record<string, string>;
  /** Hooks to add to memory-api before it is ready (e.g. to hold a request). */
  beforeReady?: (app: FastifyInstance) => void;
  /** Start no worker yet. */
  noWorker?: boolean;
}

/**
 * The real pair: memory-api in process (real SQLite file in a temp dir, the real
 * Redis under a unique prefix, listening on a free loopback port) and the
 * consolidation worker as a real child process, on a queue name of its own.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hindsight-worker-'));
  const redisPrefix = `test-${randomUUID()}`;
  const queueName = `hindsight-${randomUUID().slice(0, 8)}`;
  const config = loadMemoryApiConfig({
    DATA_DIR: dataDir,
    REDIS_PREFIX: redisPrefix,
    QUEUE_NAME: queueName,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    SESSION_IDLE_SECONDS: '0',
    JOB_BACKOFF_MS: '200',
    ...KEYS,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...options.apiEnv,
  });
  const logger = createLogger({ service: 'memory-api-test', level: 'silent' });
  const deps = await openDependencies(config, logger);
  const api = await buildApp({ config, logger, ...deps });
  options.beforeReady?.(api);
  await api.listen({ host: '127.0.0.1', port: 0 });
  const address = api.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const workers: ServiceProcess[] = [];

  const stack: Stack = {
    api,
    deps,
    url,
    dataDir,
    redisPrefix,
    queueName,
    client: new MemoryApiClient({ baseUrl: url, apiKey: 'key-acme' }),
    workers,
    async startWorker(env = {}) {
      const worker = await spawnService('consolidation-worker', {
        MEMORY_API_URL: url,
        MEMORY_API_KEY: KEYS.ADMIN_API_KEY,
        REDIS_PREFIX: redisPrefix,
        QUEUE_NAME: queueName,
        SCHEDULES_ENABLED: 'false',
        SUMMARY_DELAY_MS: '0',
        LOG_LEVEL: 'warn',
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
        ...options.workerEnv,
        ...env,
      });
      workers.push(worker);
      return worker;
    },
    async waitForJob(jobId, states, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let last: JobStatus | undefined;
      while (Date.now() < deadline) {
        last = await stack.client.job(jobId);
        if (states.includes(last.state)) return last;
        await new Promise((r) => setTimeout(r, 200));
      }
      const output = workers.map((w) => w.output()).join('\n---\n');
      throw new Error(
        `job ${jobId} not ${states.join('/')} within ${timeoutMs} ms (last: ${JSON.stringify(last)})\n${output}`,
      );
    },
    async close() {
      for (const worker of workers) await worker.stop('SIGTERM');
      await api.close();
      const keys = await deps.redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await deps.redis.del(...keys);
      await deps.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  if (!options.noWorker) await stack.startWorker();
  return stack;
}
