import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServiceProcess, spawnService } from '../support/process.ts';

let dataDir: string;
let embedderPort: number;
let embedder: ServiceProcess | undefined;
let api: ServiceProcess | undefined;

const apiEnv = () => ({
  DATA_DIR: dataDir,
  REDIS_PREFIX: `test-${randomUUID()}`,
  EMBEDDER_URL: `http://127.0.0.1:${embedderPort}`,
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
});
const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-two-services-'));
  embedderPort = await freePort();
});
afterAll(async () => {
  await api?.stop();
  await embedder?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('memory-api with the embedder service as two processes', () => {
  it('stores and retrieves through the embedder, and fails cleanly while it is down', async () => {
    embedder = await spawnService('embedder', { PORT: String(embedderPort) });
    api = await spawnService('memory-api', apiEnv());

    const stored = await fetch(
      `${api.url}/store`,
      json({ content: 'The user prefers aisle seats on long flights', memory_type: 'preference', user_id: 'two' }),
    );
    expect(stored.status).toBe(201);
    const found = (await (
      await fetch(`${api.url}/retrieve`, json({ query: 'which seat does the user prefer on flights?', user_id: 'two' }))
    ).json()) as {
      results: Array<{ content: string }>;
    };
    expect(found.results[0]?.content).toBe('The user prefers aisle seats on long flights');

    await embedder.stop('SIGTERM');
    const ready = await fetch(`${api.url}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: Record<string, { ok: boolean }> }).checks.embedder?.ok).toBe(false);

    const refused = await fetch(
      `${api.url}/store`,
      json({ content: 'The user collects vinyl records', memory_type: 'fact', user_id: 'two' }),
    );
    expect(refused.status).toBe(503);
    const problem = (await refused.json()) as { error: { code: string; message: string } };
    expect(problem.error.code).toBe('dependency_unavailable');
    expect(problem.error.message).toMatch(/embedder/);
    const listed = (await (await fetch(`${api.url}/v1/memories?user_id=two`)).json()) as { items: unknown[] };
    expect(listed.items).toHaveLength(1);

    embedder = await spawnService('embedder', { PORT: String(embedderPort) });
    expect((await fetch(`${api.url}/ready`)).status).toBe(200);
    expect(
      (
        await fetch(
          `${api.url}/store`,
          json({ content: 'The user collects vinyl records', memory_type: 'fact', user_id: 'two' }),
        )
      ).status,
    ).toBe(201);
    await api.stop();
  });

  it('refuses to start on a store built with another embedding dimension, saying how to re-index', async () => {
    // A store and embedder of its own, built at 512 dimensions here: the test holds in any order.
    const ownDir = await mkdtemp(join(tmpdir(), 'hindsight-dimension-'));
    const port = await freePort();
    const env = { ...apiEnv(), DATA_DIR: ownDir, EMBEDDER_URL: `http://127.0.0.1:${port}` };
    const wide = await spawnService('embedder', { PORT: String(port) });
    const built = await spawnService('memory-api', env);
    await built.stop();
    await wide.stop();
    const narrow = await spawnService('embedder', { PORT: String(port), EMBEDDINGS_DIM: '256' });
    try {
      const refused = await spawnService('memory-api', env, { waitReady: false });
      const code = await Promise.race([
        refused.exited,
        new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000)),
      ]);
      if (code === 'hung') await refused.stop('SIGKILL');
      expect(code).toBe(1);
      expect(refused.output()).toMatch(/dimension 512/);
      expect(refused.output()).toMatch(/dimension 256/);
      expect(refused.output()).toMatch(/re-index/);
    } finally {
      await narrow.stop();
      await rm(ownDir, { recursive: true, force: true });
    }
  });
});
