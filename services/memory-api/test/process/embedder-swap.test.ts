import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAYA_FACTS, PARAPHRASED_QUESTION } from '../support/paraphrase-facts.ts';
import { freePort, type ServiceProcess, spawnService } from '../support/process.ts';

/**
 * Upgrades that change the built-in model (builtin-v2 or builtin-v4 → builtin-v11), through real processes:
 * memory-api + the embedder service. The old store is refused with a way out, kept usable under
 * the old model by name, and moved to the new model by export → import (which re-embeds).
 */
const FACTS = MAYA_FACTS;
const QUESTION = PARAPHRASED_QUESTION;

let root: string;
const running: ServiceProcess[] = [];
const redisPrefix = `test-swap-${randomUUID()}`;

async function start(dataDir: string, embedderEnv: Record<string, string>): Promise<ServiceProcess> {
  const embedderPort = await freePort();
  running.push(await spawnService('embedder', { PORT: String(embedderPort), ...embedderEnv }));
  const api = await spawnService('memory-api', {
    DATA_DIR: dataDir,
    REDIS_PREFIX: redisPrefix,
    EMBEDDER_URL: `http://127.0.0.1:${embedderPort}`,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
  running.push(api);
  return api;
}

async function stopAll(): Promise<void> {
  for (const child of running.splice(0).reverse()) await child.stop();
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function firstAnswer(api: ServiceProcess): Promise<string> {
  const res = await post(`${api.url}/retrieve`, { query: QUESTION, user_id: 'maya', top_k: 3 });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { results: Array<{ content: string }> };
  return body.results[0]?.content ?? '';
}

/** A store written under `model`: every fact stored through /store, then the processes stopped. */
async function storeFactsUnder(dataDir: string, model: string): Promise<void> {
  const api = await start(dataDir, { EMBEDDINGS_MODEL: model });
  for (const content of FACTS) {
    expect((await post(`${api.url}/store`, { content, memory_type: 'fact', user_id: 'maya' })).status).toBe(201);
  }
  await stopAll();
}

/** memory-api on `dataDir` beside an embedder serving its default model, not waited for (it may refuse). */
async function startUnderDefaultEmbedder(dataDir: string): Promise<ServiceProcess> {
  const embedderPort = await freePort();
  running.push(await spawnService('embedder', { PORT: String(embedderPort) }));
  const api = await spawnService(
    'memory-api',
    { DATA_DIR: dataDir, REDIS_PREFIX: redisPrefix, EMBEDDER_URL: `http://127.0.0.1:${embedderPort}` },
    { waitReady: false },
  );
  running.push(api);
  return api;
}

/** The process's exit code, or 'hung' when it is still running after 20 s. */
function exitCode(child: ServiceProcess): Promise<number | null | 'hung'> {
  return Promise.race([child.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hindsight-embedder-swap-'));
});
afterEach(stopAll);
afterAll(async () => {
  await stopAll();
  await rm(root, { recursive: true, force: true });
});

describe('swapping the built-in embedder under an existing store (real processes)', () => {
  it('refuses the v2 store under v5 naming the way out, keeps it under builtin-v2, and re-embeds it by export/import', {
    timeout: 120_000,
  }, async () => {
    const oldDir = join(root, 'old');
    await storeFactsUnder(oldDir, 'builtin-v2');

    // The upgrade: the embedder now serves builtin-v11 by default.
    const refused = await startUnderDefaultEmbedder(oldDir);
    expect(await exitCode(refused)).toBe(1);
    expect(refused.output()).toContain('"builtin-v2-512"');
    expect(refused.output()).toContain('"builtin-v11-512"');
    expect(refused.output()).toContain('EMBEDDINGS_MODEL=builtin-v2');
    expect(refused.output()).toMatch(/re-index/);
    await stopAll();

    // Kept as it was under the old model, by name (where the question finds nothing relevant first); export it.
    let api = await start(oldDir, { EMBEDDINGS_MODEL: 'builtin-v2' });
    expect(await firstAnswer(api)).not.toBe('Maya is terrified of flying.');
    const exported = await (await fetch(`${api.url}/v1/export`)).text();
    expect(exported.trim().split('\n')).toHaveLength(FACTS.length);
    await stopAll();

    // A fresh store under builtin-v11: the import re-embeds every memory with the new model.
    api = await start(join(root, 'new'), {});
    const imported = await fetch(`${api.url}/v1/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: exported,
    });
    expect(imported.status).toBe(200);
    const listed = (await (await fetch(`${api.url}/v1/memories?user_id=maya`)).json()) as { items: unknown[] };
    expect(listed.items).toHaveLength(FACTS.length);
    expect(await firstAnswer(api)).toBe('Maya is terrified of flying.');
  });

  it('refuses a builtin-v4 store under builtin-v11 naming EMBEDDINGS_MODEL=builtin-v4, and serves it under that name', {
    timeout: 120_000,
  }, async () => {
    const dir = join(root, 'v4');
    await storeFactsUnder(dir, 'builtin-v4');

    const refused = await startUnderDefaultEmbedder(dir);
    expect(await exitCode(refused)).toBe(1);
    expect(refused.output()).toContain('"builtin-v4-512"');
    expect(refused.output()).toContain('"builtin-v11-512"');
    expect(refused.output()).toContain('npm run reindex');
    expect(refused.output()).toContain('EMBEDDINGS_MODEL=builtin-v4');
    await stopAll();

    const api = await start(dir, { EMBEDDINGS_MODEL: 'builtin-v4' });
    const listed = (await (await fetch(`${api.url}/v1/memories?user_id=maya`)).json()) as { items: unknown[] };
    expect(listed.items).toHaveLength(FACTS.length);
  });
});
