import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiCompatibleTestServer } from '../../../shared/embedding/test/support/openai-compatible-server.ts';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serviceDir,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitForHealth(base: string, exited: Promise<number | null>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let i = 0; i < 200 && !gone; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // Not listening yet: the child is still booting; poll again.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('embedder child process never became healthy');
}

describe('embedder service as a real child process (tsx src/main.ts)', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('boots, embeds over HTTP on the built-in provider without writing Redis, and shuts down gracefully on SIGTERM', async () => {
    const port = await freePort();
    const prefix = `test:embedder-main:${randomUUID()}:`;
    const { child, output, exited } = start({
      PORT: String(port),
      EMBEDDINGS_DIM: '96',
      REDIS_URL,
      EMBED_CACHE_REDIS_PREFIX: prefix,
    });
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const redis = new Redis(REDIS_URL);
    try {
      await waitForHealth(base, exited);
      const res = await fetch(`${base}/embed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ texts: ['a real process', '真实的进程'], encoding_format: 'base64' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { model: string; dim: number; vectors: string[] };
      expect(body).toMatchObject({ model: 'builtin-v11-96', dim: 96 });
      expect(Buffer.from(body.vectors[1] as string, 'base64').byteLength).toBe(96 * 4);
      // Computing a built-in vector costs less than a Redis look-up: REDIS_URL is not used for it.
      expect(await redis.keys(`${prefix}*`)).toHaveLength(0);
      expect((await fetch(`${base}/ready`)).status).toBe(200);

      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(output()).toContain('shutting down');
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('keeps the vectors of a model server in the Redis cache, where they spare its calls', async () => {
    const server = new OpenAiCompatibleTestServer(24);
    const baseUrl = await server.start();
    const port = await freePort();
    const prefix = `test:embedder-main:${randomUUID()}:`;
    const { child, exited } = start({
      PORT: String(port),
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: baseUrl,
      EMBEDDINGS_MODEL: 'local-model',
      EMBEDDINGS_DIM: '24',
      EMBED_CACHE_SIZE: '0',
      REDIS_URL,
      EMBED_CACHE_REDIS_PREFIX: prefix,
    });
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const redis = new Redis(REDIS_URL);
    try {
      await waitForHealth(base, exited);
      const embed = async () => {
        const res = await fetch(`${base}/embed`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ texts: ['a real process', 'a model server'], encoding_format: 'base64' }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { vectors: string[] }).vectors;
      };
      const first = await embed();
      expect(await redis.keys(`${prefix}*`)).toHaveLength(2);
      const calls = server.requests.length;
      // Without an LRU, the same texts again come from Redis: the model server is not called.
      expect(await embed()).toEqual(first);
      expect(server.requests.length).toBe(calls);
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await server.stop();
    }
  });

  it('refuses to start with an incomplete openai configuration, listing every problem', async () => {
    const { child, output, exited } = start({ PORT: String(await freePort()), EMBEDDINGS_PROVIDER: 'openai' });
    children.push(child);
    expect(await exited).toBe(1);
    expect(output()).toContain('EMBEDDINGS_BASE_URL: required when EMBEDDINGS_PROVIDER=openai');
    expect(output()).toContain('EMBEDDINGS_MODEL: required when EMBEDDINGS_PROVIDER=openai');
  });
});
