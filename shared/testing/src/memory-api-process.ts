import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { type ServiceProcess, spawnService } from './service-process.ts';

/** The repository's root (this package is dev-only and always runs from a checkout). */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const MEMORY_API_MAIN = join(REPO_ROOT, 'services/memory-api/src/main.ts');

export interface MemoryApiProcess {
  url: string;
  pid: number;
  dataDir: string;
  redisPrefix: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  exited: Promise<number | null>;
  /** Stops the process (SIGTERM, then SIGKILL after 10 s) and removes what it owned. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface MemoryApiSpawnOptions {
  /** Extra or overriding environment (e.g. API_KEYS). */
  env?: Record<string, string>;
  /** Reuse a data directory (e.g. a restart on the same store); a temp dir is made otherwise. */
  dataDir?: string;
  redisPrefix?: string;
  /** How long to wait for /ready; 60 s by default. */
  readyTimeoutMs?: number;
}

/** A Redis key prefix no other run uses. */
export function uniquePrefix(label: string): string {
  return `${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * memory-api as a real child process on loopback — a free port, its own temp DATA_DIR and Redis
 * prefix, no rate limit — ready when `/ready` answers 200. Used by the eval, the benchmarks and
 * the tests that need the real service.
 */
export async function spawnMemoryApi(options: MemoryApiSpawnOptions = {}): Promise<MemoryApiProcess> {
  const port = await freePort();
  const ownsData = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'hindsight-memory-api-')));
  const redisPrefix = options.redisPrefix ?? uniquePrefix('hindsight-run');
  const removeOwned = async (keepData: boolean) => {
    await deleteRedisKeys(redisPrefix, options.env?.REDIS_URL ?? process.env.REDIS_URL);
    if (ownsData && !keepData) await rm(dataDir, { recursive: true, force: true });
  };

  let service: ServiceProcess;
  try {
    // A memory-api that never became ready is already killed; what it owned is removed here.
    service = await spawnService({
      name: 'memory-api',
      entry: MEMORY_API_MAIN,
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        RATE_LIMIT_PER_MINUTE: '0',
        ...options.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        REDIS_PREFIX: redisPrefix,
      },
      port,
      readyPath: '/ready',
      readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
      killAfterMs: 10_000,
      outputTailChars: 64 * 1024,
    });
  } catch (error) {
    await removeOwned(false);
    throw error;
  }

  let stopped = false;
  return {
    url: service.url,
    pid: service.child.pid ?? -1,
    dataDir,
    redisPrefix,
    child: service.child,
    output: service.output,
    exited: service.exited,
    async stop(stopOptions = {}) {
      if (stopped) return;
      stopped = true;
      await service.stop('SIGTERM');
      await removeOwned(stopOptions.keepData === true);
    },
  };
}

/** Removes every Redis key under `prefix` (a run's working memory, idempotency keys, queues). */
export async function deleteRedisKeys(prefix: string, redisUrl = 'redis://127.0.0.1:6379'): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  // Failures surface through connect()/scan() rejecting; the listener only keeps ioredis from
  // raising an unhandled 'error' event on top of that.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
