import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

const SERVICES = fileURLToPath(new URL('../../..', import.meta.url));
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface ServiceProcess {
  name: string;
  url: string;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** One service of this repository as a real child process (`node --import tsx src/main.ts`). */
export async function spawnService(
  name: 'memory-api' | 'consolidation-worker' | 'agent',
  env: Record<string, string>,
  options: { port?: number; readyPath?: string | null } = {},
): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: join(SERVICES, name),
    env: { ...process.env, LOG_LEVEL: 'warn', REDIS_URL, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    name,
    url,
    port,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
      if (code === 'hung') {
        child.kill('SIGKILL');
        return exited;
      }
      return code;
    },
  };
  const readyPath = options.readyPath === undefined ? '/ready' : options.readyPath;
  if (readyPath !== null) {
    try {
      await waitFor(`${url}${readyPath}`, exited, () => output, name);
    } catch (error) {
      await service.stop('SIGKILL');
      throw error;
    }
  }
  return service;
}

/** Polls a URL for 200 for up to 45 s; fails early when the process exits. */
export async function waitFor(
  url: string,
  exited: Promise<number | null>,
  output: () => string,
  name: string,
): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`${name} exited before it was ready:\n${output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} not ready within 45 s:\n${output()}`);
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
