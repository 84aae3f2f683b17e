import { parsePrometheusText } from '@hindsight/metrics';
import { type MemoryApiProcess, spawnMemoryApi } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const KEY = 'observability-key';
const ADMIN = 'observability-admin';

describe('/metrics and /debug/memory on a real memory-api process', () => {
  let api: MemoryApiProcess;
  const call = async (method: string, path: string, body?: unknown, key = KEY) => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, text: await response.text() };
  };
  const scrape = async () => {
    const { status, text } = await call('GET', '/metrics');
    expect(status).toBe(200);
    return parsePrometheusText(text);
  };
  const value = (samples: ReturnType<typeof parsePrometheusText>, name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);

  beforeAll(async () => {
    api = await spawnMemoryApi({ env: { API_KEYS: `acme:${KEY}`, ADMIN_API_KEY: ADMIN } });
  }, 90_000);
  afterAll(async () => {
    await api?.stop();
  });

  it('moves the write, store, embed and layer series when a memory is written', async () => {
    const before = await scrape();
    expect(
      (
        await call('POST', '/v1/memories', {
          content: 'Prefers aisle seats',
          memory_type: 'preference',
          user_id: 'obs-1',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call('POST', '/v1/memories', {
          content: 'Prefers aisle seats',
          memory_type: 'preference',
          user_id: 'obs-1',
        })
      ).status,
    ).toBe(200);
    const after = await scrape();

    const writes = (status: string) =>
      value(after, 'hindsight_memory_writes_total', { status, layer: 'semantic' }) -
      value(before, 'hindsight_memory_writes_total', { status, layer: 'semantic' });
    expect(writes('created')).toBe(1);
    expect(writes('duplicate')).toBe(1);
    expect(value(after, 'hindsight_memories', { layer: 'semantic', status: 'active' })).toBe(
      value(before, 'hindsight_memories', { layer: 'semantic', status: 'active' }) + 1,
    );
    const commits = (s: typeof before) =>
      value(s, 'hindsight_store_query_duration_seconds_count', { operation: 'commit' });
    expect(commits(after)).toBeGreaterThan(commits(before));
    expect(value(after, 'hindsight_embed_batch_size_count')).toBeGreaterThan(
      value(before, 'hindsight_embed_batch_size_count'),
    );
    const route = { route: '/v1/memories', method: 'POST' };
    expect(value(after, 'hindsight_http_request_duration_seconds_count', route)).toBe(
      value(before, 'hindsight_http_request_duration_seconds_count', route) + 2,
    );
  });

  it('counts searches with and without results, and /debug/memory reports the hit rate', async () => {
    // A memory of its own to find, whichever test ran first.
    const written = await call('POST', '/v1/memories', {
      content: 'Prefers window seats',
      memory_type: 'preference',
      user_id: 'obs-2',
    });
    expect(written.status).toBe(201);
    expect((await call('POST', '/v1/search', { query: 'window seats', user_id: 'obs-2' })).status).toBe(200);
    expect((await call('POST', '/v1/search', { query: 'anything at all', user_id: 'obs-nobody' })).status).toBe(200);
    const samples = await scrape();
    expect(value(samples, 'hindsight_searches_total', { outcome: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'hindsight_searches_total', { outcome: 'empty' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'hindsight_search_duration_seconds_count')).toBeGreaterThanOrEqual(2);

    expect((await call('GET', '/debug/memory')).status).toBe(403);
    const debug = await call('GET', '/debug/memory', undefined, ADMIN);
    expect(debug.status).toBe(200);
    const body = JSON.parse(debug.text) as {
      layers: Record<string, Record<string, number>>;
      total: number;
      last_write_at: string | null;
      retrieval: { searches: number; with_results: number; hit_rate: number };
    };
    expect(body.layers.semantic?.active).toBeGreaterThanOrEqual(1);
    expect(body.total).toBeGreaterThanOrEqual(1);
    expect(Date.parse(body.last_write_at ?? '')).not.toBeNaN();
    expect(body.retrieval.searches).toBeGreaterThanOrEqual(2);
    expect(body.retrieval.hit_rate).toBeCloseTo(body.retrieval.with_results / body.retrieval.searches, 3);
    expect(body.retrieval.hit_rate).toBeLessThan(1);
  });

  it('times the steps of a search the read workers run: keyword search, k-NN and records', async () => {
    const written = await call('POST', '/v1/memories', {
      content: 'Keeps a sourdough starter called Bubbles',
      memory_type: 'fact',
      user_id: 'obs-3',
    });
    expect(written.status).toBe(201);
    const before = await scrape();
    const searched = await call('POST', '/retrieve', {
      query: 'what is the sourdough starter called',
      user_id: 'obs-3',
    });
    expect(searched.status).toBe(200);
    expect((JSON.parse(searched.text) as { results: unknown[] }).results).toHaveLength(1);
    const after = await scrape();
    const steps = (samples: typeof before, operation: string) =>
      value(samples, 'hindsight_store_query_duration_seconds_count', { operation });
    for (const operation of ['keywordSearch', 'vectorSearch', 'candidateRecords']) {
      expect({ operation, count: steps(after, operation) - steps(before, operation) }).toEqual({ operation, count: 1 });
    }
  });
});
