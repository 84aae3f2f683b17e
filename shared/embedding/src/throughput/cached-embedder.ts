import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Embedder } from '../port.ts';
import { fromLittleEndianBytes, toLittleEndianBytes } from '../vector.ts';
import { LruCache } from './lru.ts';

export interface CacheLookup {
  lruHits: number;
  redisHits: number;
  misses: number;
}

export interface CachedEmbedderOptions {
  /** Vectors kept in process (0 disables the in-process tier). */
  lruSize: number;
  /** Optional shared tier: vectors stored as little-endian float32 bytes. */
  redis?: Redis;
  /** Prefix of every Redis key (tests use a unique one). */
  redisPrefix?: string;
  /** Expiry of Redis entries; omit to keep them until evicted. */
  redisTtlSeconds?: number;
  /** Told the outcome of every lookup (for metrics). */
  onLookup?: (lookup: CacheLookup) => void;
  /**
   * Told about Redis failures. The cache is an optimisation: a Redis outage degrades to
   * computing vectors, it never fails an embed, but the caller must see it (log, metric).
   */
  onCacheError?: (error: unknown) => void;
}

/**
 * Caches vectors by model + sha256(text): the same text under the same model always gives the
 * same vector (the port's contract), so a hit is exact. Tiers: in-process LRU, then Redis
 * (shared by every replica), then the wrapped embedder for whatever is left.
 */
export class CachedEmbedder implements Embedder {
  private readonly lru: LruCache<string, Float32Array> | undefined;
  private readonly prefix: string;

  constructor(
    private readonly inner: Embedder,
    private readonly options: CachedEmbedderOptions,
  ) {
    this.lru = options.lruSize > 0 ? new LruCache(options.lruSize) : undefined;
    this.prefix = options.redisPrefix ?? 'hindsight:emb:';
  }

  get model(): string {
    return this.inner.model;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const model = this.inner.model;
    const keys = texts.map((t) => `${model}:${createHash('sha256').update(t).digest('hex')}`);
    const out = new Array<Float32Array | undefined>(texts.length);
    const lookup: CacheLookup = { lruHits: 0, redisHits: 0, misses: 0 };

    let missing: number[] = [];
    keys.forEach((key, i) => {
      const hit = this.lru?.get(key);
      if (hit) {
        out[i] = hit.slice();
        lookup.lruHits++;
      } else missing.push(i);
    });

    if (missing.length > 0 && this.options.redis) {
      missing = await this.fillFromRedis(keys, missing, out, lookup);
    }

    if (missing.length > 0) {
      lookup.misses += missing.length;
      const vectors = await this.inner.embed(missing.map((i) => texts[i] as string));
      missing.forEach((i, j) => {
        out[i] = vectors[j] as Float32Array;
        this.lru?.set(keys[i] as string, (vectors[j] as Float32Array).slice());
      });
      if (this.options.redis) await this.storeInRedis(missing.map((i) => [keys[i] as string, out[i] as Float32Array]));
    }
    this.options.onLookup?.(lookup);
    return out as Float32Array[];
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  private async fillFromRedis(
    keys: string[],
    missing: number[],
    out: Array<Float32Array | undefined>,
    lookup: CacheLookup,
  ): Promise<number[]> {
    const redis = this.options.redis as Redis;
    let stored: Array<Buffer | null>;
    try {
      stored = await redis.mgetBuffer(...missing.map((i) => this.prefix + (keys[i] as string)));
    } catch (error) {
      this.options.onCacheError?.(error);
      return missing;
    }
    const stillMissing: number[] = [];
    missing.forEach((i, j) => {
      const bytes = stored[j];
      if (bytes && bytes.byteLength === this.inner.dimension * 4) {
        const vector = fromLittleEndianBytes(bytes);
        out[i] = vector;
        this.lru?.set(keys[i] as string, vector.slice());
        lookup.redisHits++;
      } else stillMissing.push(i);
    });
    return stillMissing;
  }

  private async storeInRedis(entries: Array<[string, Float32Array]>): Promise<void> {
    const pipeline = (this.options.redis as Redis).pipeline();
    for (const [key, vector] of entries) {
      const bytes = Buffer.from(toLittleEndianBytes(vector));
      if (this.options.redisTtlSeconds) pipeline.set(this.prefix + key, bytes, 'EX', this.options.redisTtlSeconds);
      else pipeline.set(this.prefix + key, bytes);
    }
    try {
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (failed) this.options.onCacheError?.(failed[0]);
    } catch (error) {
      this.options.onCacheError?.(error);
    }
  }
}
