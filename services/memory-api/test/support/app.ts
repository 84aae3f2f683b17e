import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@hindsight/logger';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadMemoryApiConfig } from '../../src/config.ts';
import { type Dependencies, openDependencies } from '../../src/dependencies.ts';

export interface TestApp {
  app: FastifyInstance;
  deps: Dependencies;
  dataDir: string;
  redisPrefix: string;
  close(): Promise<void>;
}

/**
 * The real memory-api (real SQLite file in a temp dir, the real Redis under a
 * unique prefix), built in process for `app.inject`.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hindsight-api-'));
  const redisPrefix = `test-${randomUUID()}`;
  const config = loadMemoryApiConfig({
    DATA_DIR: dataDir,
    REDIS_PREFIX: redisPrefix,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...env,
  });
  const logger = createLogger({ service: 'memory-api-test', level: 'silent' });
  const deps = await openDependencies(config, logger);
  const app = await buildApp({ config, logger, ...deps });
  await app.ready();
  return {
    app,
    deps,
    dataDir,
    redisPrefix,
    async close() {
      await app.close();
      const keys = await deps.redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await deps.redis.del(...keys);
      await deps.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const TENANT_KEYS = { API_KEYS: 'acme:key-acme,globex:key-globex', ADMIN_API_KEY: 'key-admin' };
export const auth = (key: string) => ({ authorization: `Bearer ${key}` });
