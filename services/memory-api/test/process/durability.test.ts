import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteRedisKeys } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServiceProcess, spawnService } from '../support/process.ts';

let dataDir: string;
const env = () => ({ DATA_DIR: dataDir, REDIS_PREFIX: `test-${randomUUID()}` });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-durable-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('memory-api as a real process', () => {
  it('keeps a memory acknowledged with 2xx after SIGKILL and restart', async () => {
    const first = await spawnService('memory-api', env());
    const response = await fetch(`${first.url}/store`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'The user keeps a spare key under the blue flowerpot',
        memory_type: 'fact',
        user_id: 'durable',
      }),
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await spawnService('memory-api', env());
    try {
      const record = await fetch(`${second.url}/v1/memories/${id}`);
      expect(record.status).toBe(200);
      expect(((await record.json()) as { content: string }).content).toBe(
        'The user keeps a spare key under the blue flowerpot',
      );
    } finally {
      expect(await second.stop('SIGTERM')).toBe(143);
    }
  });

  it('keeps every write acknowledged to 16 concurrent writers when killed among them', async () => {
    const first = await spawnService('memory-api', env());
    const acknowledged = await killAmongWriters(first, 200, async (w, i) => {
      const content = `Writer ${w} noted parcel ${i} for the storage room`;
      const { id } = (await postJson(first.url, '/store', { content, user_id: `writer-${w % 4}` })) as { id: string };
      return [{ id, content }];
    });

    const second = await spawnService('memory-api', env());
    try {
      const stored = new Map<string, string>();
      for (let w = 0; w < 4; w++) {
        let cursor: string | null = null;
        do {
          const query = new URLSearchParams({ user_id: `writer-${w}`, limit: '200', ...(cursor ? { cursor } : {}) });
          const page = (await (await fetch(`${second.url}/v1/memories?${query}`)).json()) as {
            items: Array<{ id: string; content: string }>;
            next_cursor: string | null;
          };
          for (const item of page.items) stored.set(item.id, item.content);
          cursor = page.next_cursor;
        } while (cursor !== null);
      }
      const lost = acknowledged.filter(({ id, content }) => stored.get(id) !== content);
      expect(lost).toEqual([]);
      expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(143);
    }
  });

  it('keeps every acknowledged semantic, episodic and batched write of 16 writers, with the embedder service, when killed among them', async () => {
    // The default topology (memory-api + the embedder service, as npm start runs them). Semantic
    // writes decide merge/supersede under the owner lock; batches commit all or nothing.
    const embedderPort = await freePort();
    const cachePrefix = `test-${randomUUID()}:emb:`;
    const embedder = await spawnService('embedder', {
      PORT: String(embedderPort),
      EMBED_CACHE_REDIS_PREFIX: cachePrefix,
    });
    const apiEnv = { ...env(), EMBEDDER_URL: `http://127.0.0.1:${embedderPort}` };
    try {
      const first = await spawnService('memory-api', apiEnv);
      const acknowledged = await killAmongWriters(first, 300, async (w, i) => {
        const user_id = `mixed-${w % 4}`;
        if (w % 4 === 0) {
          const contents = Array.from({ length: 5 }, (_, k) => `Writer ${w} logged crate ${i}-${k} at the dock`);
          const { items } = (await postJson(first.url, '/v1/memories', {
            items: contents.map((content) => ({ content, user_id })),
          })) as { items: Array<{ id: string }> };
          return items.map((item, k) => ({ id: item.id, content: contents[k] as string }));
        }
        const content =
          w % 4 === 1
            ? `Writer ${w} keeps spare part number ${i} in the drawer by the window`
            : `Writer ${w} noted parcel ${i} for the storage room`;
        const body = { content, user_id, ...(w % 4 === 1 ? { memory_type: 'fact' } : {}) };
        const { id } = (await postJson(first.url, '/store', body)) as { id: string };
        return [{ id, content }];
      });

      const second = await spawnService('memory-api', apiEnv);
      try {
        const lost: Array<{ id: string; content: string }> = [];
        for (const write of acknowledged) {
          const response = await fetch(`${second.url}/v1/memories/${write.id}`);
          const record =
            response.status === 200
              ? ((await response.json()) as { content: string; history: Array<{ content: string }> })
              : undefined;
          // A merged write lives on in the memory it refined: as its content or in its history.
          const kept =
            record && (record.content === write.content || record.history.some((h) => h.content === write.content));
          if (!kept) lost.push(write);
        }
        expect(lost).toEqual([]);
      } finally {
        expect(await second.stop('SIGTERM')).toBe(143);
      }
    } finally {
      await embedder.stop('SIGTERM');
      await deleteRedisKeys(cachePrefix, process.env.REDIS_URL);
    }
  });

  it('refuses to listen on a non-loopback address without API keys', async () => {
    const service = await spawnService('memory-api', { ...env(), HOST: '0.0.0.0' }, { waitReady: false });
    const code = await Promise.race([service.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
    if (code === 'hung') await service.stop('SIGKILL');
    expect(code).toBe(78);
    expect(service.output()).toMatch(/refusing to listen on a non-loopback address without API keys/);
  });

  it('lists every configuration problem at once and exits', async () => {
    const service = await spawnService(
      'memory-api',
      { ...env(), PORT: '8001', MERGE_THRESHOLD: 'high', RANK_AGREEMENT: '-3' },
      { waitReady: false },
    );
    const code = await Promise.race([service.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
    if (code === 'hung') await service.stop('SIGKILL');
    expect(code).toBe(1);
    expect(service.output()).toMatch(/MERGE_THRESHOLD/);
    expect(service.output()).toMatch(/RANK_AGREEMENT/);
  });
});

interface Acknowledged {
  id: string;
  content: string;
}

/** POSTs a JSON body; anything but 200/201 is an error. */
async function postJson(base: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  }
  return response.json();
}

/**
 * Runs 16 writers, each calling `write(w, i)` for i = 0, 1, … until the service is killed, and
 * SIGKILLs it with writes in flight once `after` writes were acknowledged; returns them all. A
 * request cut by the kill is not acknowledged; any other failure fails the test.
 */
async function killAmongWriters(
  service: ServiceProcess,
  after: number,
  write: (w: number, i: number) => Promise<Acknowledged[]>,
): Promise<Acknowledged[]> {
  const acknowledged: Acknowledged[] = [];
  let killed = false;
  let failure: unknown;
  const writer = async (w: number) => {
    for (let i = 0; !killed; i++) {
      try {
        acknowledged.push(...(await write(w, i)));
      } catch (error) {
        if (!killed) {
          failure ??= error;
          return;
        }
      }
    }
  };
  const writers = Array.from({ length: 16 }, (_, w) => writer(w));
  while (acknowledged.length < after && failure === undefined) await new Promise((r) => setTimeout(r, 10));
  killed = true;
  service.child.kill('SIGKILL');
  await service.exited;
  await Promise.all(writers);
  if (failure !== undefined) throw failure;
  return acknowledged;
}
