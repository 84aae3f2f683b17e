import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { freePort } from '@hindsight/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BuiltinEmbedder,
  CachedEmbedder,
  type CacheLookup,
  type Embedder,
  LEXICAL_FEATURES,
  LruCache,
} from '../src/index.ts';
import { describeEmbedderContract } from './support/embedder-contract.ts';

class CountingEmbedder implements Embedder {
  texts: string[] = [];
  private readonly inner = new BuiltinEmbedder({ dimension: 64 });
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return this.inner.embed(texts);
  }
  async check(): Promise<void> {
    return;
  }
}

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describeEmbedderContract('LRU-cached builtin', async () => ({
  embedder: new CachedEmbedder(new BuiltinEmbedder(), { lruSize: 100 }),
}));

describe('LruCache', () => {
  it('evicts the least recently used entry', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.get('a');
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
  });
});

describe('CachedEmbedder (in-process LRU)', () => {
  it('serves repeated texts from the cache and only sends new ones to the provider', async () => {
    const provider = new CountingEmbedder();
    const lookups: CacheLookup[] = [];
    const cached = new CachedEmbedder(provider, { lruSize: 10, onLookup: (l) => lookups.push(l) });
    const first = await cached.embed(['alpha', 'beta']);
    const second = await cached.embed(['beta', 'gamma', 'alpha']);
    expect(provider.texts).toEqual(['alpha', 'beta', 'gamma']);
    expect(lookups).toEqual([
      { lruHits: 0, redisHits: 0, misses: 2 },
      { lruHits: 2, redisHits: 0, misses: 1 },
    ]);
    expect(Array.from(second[2] as Float32Array)).toEqual(Array.from(first[0] as Float32Array));
  });

  it('hands out copies, so a caller mutating a vector cannot corrupt the cache', async () => {
    const cached = new CachedEmbedder(new CountingEmbedder(), { lruSize: 10 });
    const [v] = await cached.embed(['alpha']);
    (v as Float32Array).fill(0);
    const [again] = await cached.embed(['alpha']);
    expect(Math.hypot(...(again as Float32Array))).toBeCloseTo(1, 5);
  });
});

describe('CachedEmbedder with Redis (real Redis)', () => {
  const prefix = `test:emb:${randomUUID()}:`;
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
    redis.on('error', () => {
      // Failures surface through the commands the tests await; the listener keeps ioredis from crashing.
    });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('stores vectors as digest + float32 bytes in a hashed slot and shares them between instances', async () => {
    // Its own key space: the other tests' slots (under the same prefix) are not counted.
    const shared = `${prefix}shared:`;
    const providerA = new CountingEmbedder();
    const a = new CachedEmbedder(providerA, { lruSize: 0, redis, redisPrefix: shared, redisTtlSeconds: 60 });
    const [va] = await a.embed(['shared across replicas']);

    const keys = await redis.keys(`${shared}*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^${shared}\\d+$`));
    expect(await redis.strlen(keys[0] as string)).toBe(32 + 64 * 4);
    expect(await redis.ttl(keys[0] as string)).toBeGreaterThan(0);

    const providerB = new CountingEmbedder();
    const lookups: CacheLookup[] = [];
    const b = new CachedEmbedder(providerB, {
      lruSize: 10,
      redis,
      redisPrefix: shared,
      onLookup: (l) => lookups.push(l),
    });
    const [vb] = await b.embed(['shared across replicas']);
    expect(providerB.texts).toEqual([]);
    expect(lookups).toEqual([{ lruHits: 0, redisHits: 1, misses: 0 }]);
    expect(Array.from(vb as Float32Array)).toEqual(Array.from(va as Float32Array));
  });

  it('never holds more than redisMaxEntries keys, and a slot taken by another text is a miss, never its vector', async () => {
    const bounded = `${prefix}bounded:`;
    const provider = new CountingEmbedder();
    const cached = new CachedEmbedder(provider, { lruSize: 0, redis, redisPrefix: bounded, redisMaxEntries: 8 });
    const texts = Array.from({ length: 200 }, (_, i) => `distinct memory number ${i} about topic ${i % 13}`);
    for (let i = 0; i < texts.length; i += 20) await cached.embed(texts.slice(i, i + 20));
    expect((await redis.keys(`${bounded}*`)).length).toBeLessThanOrEqual(8);

    // Every text again, one slot for all of them: each answer is still that text's own vector.
    const one = new CachedEmbedder(new CountingEmbedder(), {
      lruSize: 0,
      redis,
      redisPrefix: `${prefix}one:`,
      redisMaxEntries: 1,
    });
    const reference = new BuiltinEmbedder({ dimension: 64 });
    for (const text of ['first text', 'second text', 'first text', 'second text']) {
      const [got] = await one.embed([text]);
      const [expected] = await reference.embed([text]);
      expect(Array.from(got as Float32Array)).toEqual(Array.from(expected as Float32Array));
    }
    expect(await redis.keys(`${prefix}one:*`)).toHaveLength(1);
  });

  it('forgets exactly the given texts in the LRU and their Redis slots, and nothing another text took', async () => {
    const forgetting = `${prefix}forget:`;
    const provider = new CountingEmbedder();
    const cached = new CachedEmbedder(provider, { lruSize: 10, redis, redisPrefix: forgetting });
    await cached.embed(['erase this text', 'keep this text']);
    expect(await redis.keys(`${forgetting}*`)).toHaveLength(2);

    expect(await cached.forget(['erase this text', 'never cached'])).toBe(2);
    expect(await redis.keys(`${forgetting}*`)).toHaveLength(1);
    provider.texts = [];
    await cached.embed(['erase this text', 'keep this text']);
    expect(provider.texts).toEqual(['erase this text']);

    // A slot now holding another text's vector stays.
    const one = new CachedEmbedder(new CountingEmbedder(), {
      lruSize: 0,
      redis,
      redisPrefix: `${prefix}one-slot:`,
      redisMaxEntries: 1,
    });
    await one.embed(['first occupant']);
    await one.embed(['second occupant']);
    expect(await one.forget(['first occupant'])).toBe(0);
    expect(await redis.keys(`${prefix}one-slot:*`)).toHaveLength(1);
    expect(await one.forget(['second occupant'])).toBe(1);
  });

  it('keeps embedding when Redis is down and reports the cache error', async () => {
    const broken = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    broken.on('error', () => {
      // Expected: nothing listens on port 1; the error reaches the test through onCacheError.
    });
    const errors: unknown[] = [];
    const cached = new CachedEmbedder(new CountingEmbedder(), {
      lruSize: 0,
      redis: broken,
      redisPrefix: prefix,
      onCacheError: (e) => errors.push(e),
    });
    await expect(cached.embed(['still works'])).resolves.toHaveLength(1);
    expect(errors.length).toBeGreaterThan(0);
    broken.disconnect();
  });
});

describe('CachedEmbedder beside a queue in a noeviction Redis (real redis-server, 4 MB maxmemory)', () => {
  let server: ChildProcess;
  let redis: Redis;

  beforeAll(async () => {
    const port = await freePort();
    server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory',
        '4mb',
        '--maxmemory-policy',
        'noeviction',
      ],
      {
        stdio: 'ignore',
      },
    );
    redis = new Redis({ port, maxRetriesPerRequest: 1, retryStrategy: (n) => (n > 50 ? null : 100) });
    redis.on('error', () => {
      // Connection refused until redis-server listens; commands below report real failures.
    });
    await redis.ping();
  });
  afterAll(async () => {
    redis.disconnect();
    server.kill('SIGTERM');
  });

  it('stops caching before the memory ceiling, so the queue can still write', async () => {
    // An unbounded cache of 512-d vectors (2 KB each) would fill 4 MB after ≈ 1,500 texts.
    const cached = new CachedEmbedder(new BuiltinEmbedder({ features: LEXICAL_FEATURES }), {
      lruSize: 0,
      redis,
      redisPrefix: 'cache:',
      redisMaxEntries: 1_000_000,
      redisMemoryCeiling: 0.5,
      redisMemoryCheckMs: 0,
    });
    const errors: unknown[] = [];
    const watched = new CachedEmbedder(new BuiltinEmbedder({ features: LEXICAL_FEATURES }), {
      lruSize: 0,
      redis,
      redisPrefix: 'cache:',
      redisMaxEntries: 1_000_000,
      redisMemoryCheckMs: 0,
      onCacheError: (e) => errors.push(e),
    });
    for (let round = 0; round < 60; round++) {
      const texts = Array.from({ length: 100 }, (_, i) => `note ${round}-${i} about the parcel and the garden`);
      await (round % 2 ? watched : cached).embed(texts);
    }
    expect(errors).toEqual([]);
    const info = await redis.info('memory');
    const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
    expect(used).toBeLessThan(4 * 1024 * 1024);
    await expect(
      redis.lpush('queue:jobs', JSON.stringify({ job: 'consolidate', payload: 'x'.repeat(10_000) })),
    ).resolves.toBe(1);
  }, 60_000);
});
