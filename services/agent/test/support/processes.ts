import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type ServiceProcess, spawnService as spawnChild } from '@hindsight/testing';
import { Redis } from 'ioredis';

export type { ServiceProcess };

const SERVICES = fileURLToPath(new URL('../../..', import.meta.url));
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * One service of this repository as a real child process (`node --import tsx src/main.ts`),
 * waiting up to 45 s for `readyPath` (`/ready` by default; null does not wait). A stop that
 * hangs for 15 s ends in SIGKILL.
 */
export async function spawnService(
  name: 'memory-api' | 'consolidation-worker' | 'agent',
  env: Record<string, string>,
  options: { port?: number; readyPath?: string | null } = {},
): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  return spawnChild({
    name,
    entry: 'src/main.ts',
    cwd: join(SERVICES, name),
    // Loopback unless the test asks for another bind (HOST in env).
    env: { ...process.env, LOG_LEVEL: 'warn', REDIS_URL, HOST: '127.0.0.1', ...env, PORT: String(port) },
    port,
    readyPath: options.readyPath === undefined ? '/ready' : options.readyPath,
    readyTimeoutMs: 45_000,
    killAfterMs: 15_000,
  });
}

/** A private memory-api deployment for one test file: data dir, Redis prefix, API keys. */
export interface Deployment {
  dataDir: string;
  redisPrefix: string;
  apiKey: string;
  memoryApiEnv: Record<string, string>;
  cleanup(): Promise<void>;
}

export async function createDeployment(): Promise<Deployment> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hindsight-agent-test-'));
  const redisPrefix = `test-agent-${randomUUID()}`;
  const apiKey = `key-${randomUUID()}`;
  return {
    dataDir,
    redisPrefix,
    apiKey,
    memoryApiEnv: {
      DATA_DIR: dataDir,
      REDIS_PREFIX: redisPrefix,
      API_KEYS: `agent-test:${apiKey},other-tenant:key-other-${redisPrefix}`,
      ADMIN_API_KEY: `admin-${apiKey}`,
      RATE_LIMIT_PER_MINUTE: '0',
    },
    async cleanup() {
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      redis.on('error', () => undefined);
      try {
        await redis.connect();
        const keys = await redis.keys(`${redisPrefix}*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON answer; tests read it field by field and assert on it. */
// biome-ignore lint/suspicious/noExplicitAny: the shape is what the assertions check.
export type JsonAnswer = { status: number; body: any };

/** JSON over real HTTP, bounded. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
