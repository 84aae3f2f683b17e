import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
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

export interface SpawnOptions {
  /** Extra or overriding environment (e.g. API_KEYS). */
  env?: Record<string, string>;
  /** Reuse a data directory (e.g. a restart on the same store); a temp dir is made otherwise. */
  dataDir?: string;
  redisPrefix?: string;
  /** How long to wait for /ready; 60 s by default. */
  readyTimeoutMs?: number;
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** A Redis key prefix no other run uses. */
export function uniquePrefix(label: string): string {
  return `${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * memory-api as a real child process on loopback — a free port, its own temp DATA_DIR and Redis
 * prefix, no rate limit — ready when `/ready` answers 200. Used by the eval, the benchmarks, the
 * CLI's `eval` and the tests that need the real service.
 */
export async function spawnMemoryApi(options: SpawnOptions = {}): Promise<MemoryApiProcess> {
  const port = await freePort();
  const ownsData = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'hindsight-memory-api-')));
  const redisPrefix = options.redisPrefix ?? uniquePrefix('hindsight-run');
  const child = spawn(process.execPath, ['--import', 'tsx', MEMORY_API_MAIN], {
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
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    // Keep the tail only: a long run must not grow this without bound.
    output = (output + chunk.toString()).slice(-64 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  let stopped = false;
  const service: MemoryApiProcess = {
    url,
    pid: child.pid ?? -1,
    dataDir,
    redisPrefix,
    child,
    output: () => output,
    exited,
    async stop(stopOptions = {}) {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await deleteRedisKeys(redisPrefix, options.env?.REDIS_URL ?? process.env.REDIS_URL);
      if (ownsData && !stopOptions.keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await waitForReady(url, exited, () => output, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}

/** Polls `${url}/ready` until it answers 200; fails early when the process exits. */
export async function waitForReady(
  url: string,
  exited: Promise<number | null>,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`memory-api exited (code ${exitCode}) before it was ready:\n${output()}`);
    try {
      const response = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // Not listening yet: poll again.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`memory-api was not ready within ${timeoutMs} ms:\n${output()}`);
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
