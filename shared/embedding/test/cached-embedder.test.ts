import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinEmbedder, CachedEmbedder, type CacheLookup, type Embedder, LruCache } from '../src/index.ts';
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

  it('stores vectors as float32 bytes keyed by model + sha256 and shares them between instances', async () => {
    const providerA = new CountingEmbedder();
    const a = new CachedEmbedder(providerA, { lruSize: 0, redis, redisPrefix: prefix, redisTtlSeconds: 60 });
    const [va] = await a.embed(['shared across replicas']);

    const keys = await redis.keys(`${prefix}*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^${prefix}builtin-v2-64:[0-9a-f]{64}$`));
    expect(await redis.strlen(keys[0] as string)).toBe(64 * 4);
    expect(await redis.ttl(keys[0] as string)).toBeGreaterThan(0);

    const providerB = new CountingEmbedder();
    const lookups: CacheLookup[] = [];
    const b = new CachedEmbedder(providerB, {
      lruSize: 10,
      redis,
      redisPrefix: prefix,
      onLookup: (l) => lookups.push(l),
    });
    const [vb] = await b.embed(['shared across replicas']);
    expect(providerB.texts).toEqual([]);
    expect(lookups).toEqual([{ lruHits: 0, redisHits: 1, misses: 0 }]);
    expect(Array.from(vb as Float32Array)).toEqual(Array.from(va as Float32Array));
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
