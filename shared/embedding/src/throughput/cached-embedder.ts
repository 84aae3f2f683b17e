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
  /** Expiry of Redis entries; omit to keep them until overwritten. */
  redisTtlSeconds?: number;
  /**
   * Most vectors kept in Redis (default 20 000: ≈ 43 MB at 512 dimensions). Entries live in a
   * fixed set of slots chosen by hash, so the key count can never grow past this, whatever the
   * traffic: the cache may share a `noeviction` Redis with the queue without filling it.
   */
  redisMaxEntries?: number;
  /**
   * Stop writing to Redis while it uses more than this share of its `maxmemory` (checked at most
   * every few seconds): what is left belongs to the queue and working memory. Default 0.8.
   */
  redisMemoryCeiling?: number;
  /** How long one reading of Redis's memory use is trusted (default 5 s; 0 = read it before every write). */
  redisMemoryCheckMs?: number;
  /** Told the outcome of every lookup (for metrics). */
  onLookup?: (lookup: CacheLookup) => void;
  /**
   * Told about Redis failures. The cache is an optimisation: a Redis outage degrades to
   * computing vectors, it never fails an embed, but the caller must see it (log, metric).
   */
  onCacheError?: (error: unknown) => void;
}

export const DEFAULT_REDIS_CACHE_ENTRIES = 20_000;
const DIGEST_BYTES = 32;

/** Deletes a slot only while it holds the given digest's vector (another text may have taken it since). */
const FORGET_SLOT = `
if redis.call('GETRANGE', KEYS[1], 0, ${DIGEST_BYTES - 1}) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Caches vectors by sha256(model + text): the same text under the same model always gives the
 * same vector (the port's contract), so a hit is exact. Tiers: in-process LRU, then Redis
 * (shared by every replica), then the wrapped embedder for whatever is left.
 *
 * In Redis the cache is direct-mapped: `prefix + slot`, slot = digest mod `redisMaxEntries`, value =
 * digest ‖ float32 vector. A newer text in a taken slot replaces the older one; a read whose digest
 * differs is a miss. Bounded by construction, one round trip per batch, no eviction bookkeeping.
 */
export class CachedEmbedder implements Embedder {
  private readonly lru: LruCache<string, Float32Array> | undefined;
  private readonly prefix: string;
  private readonly slots: number;
  private memory: { checkedAt: number; writable: boolean } = { checkedAt: -Infinity, writable: true };

  constructor(
    private readonly inner: Embedder,
    private readonly options: CachedEmbedderOptions,
  ) {
    this.lru = options.lruSize > 0 ? new LruCache(options.lruSize) : undefined;
    this.prefix = options.redisPrefix ?? 'hindsight:emb:';
    this.slots = options.redisMaxEntries ?? DEFAULT_REDIS_CACHE_ENTRIES;
    if (!Number.isInteger(this.slots) || this.slots < 1) {
      throw new RangeError(`redisMaxEntries must be a positive integer, got ${this.slots}`);
    }
  }

  get model(): string {
    return this.inner.model;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const digests = texts.map((t) => this.digestOf(t));
    const keys = digests.map((d) => d.toString('hex'));
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
      missing = await this.fillFromRedis(digests, keys, missing, out, lookup);
    }

    if (missing.length > 0) {
      lookup.misses += missing.length;
      const vectors = await this.inner.embed(missing.map((i) => texts[i] as string));
      missing.forEach((i, j) => {
        out[i] = vectors[j] as Float32Array;
        this.lru?.set(keys[i] as string, (vectors[j] as Float32Array).slice());
      });
      if (this.options.redis) {
        await this.storeInRedis(missing.map((i) => [digests[i] as Buffer, out[i] as Float32Array]));
      }
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

  /** Drops these texts' vectors from the LRU and from their Redis slots (only where the slot still holds them). */
  async align(query: string, texts: readonly string[]): Promise<number[] | undefined> {
    return this.inner.align?.(query, texts);
  }

  async forget(texts: readonly string[]): Promise<number> {
    if (texts.length === 0) return 0;
    const digests = texts.map((t) => this.digestOf(t));
    let dropped = 0;
    for (const digest of digests) if (this.lru?.delete(digest.toString('hex'))) dropped += 1;
    const redis = this.options.redis;
    if (redis) {
      const pipeline = redis.pipeline();
      for (const digest of digests) pipeline.eval(FORGET_SLOT, 1, this.slotKey(digest), digest);
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([error]) => error);
      if (failed) throw failed[0];
      dropped += results.reduce((sum, [, removed]) => sum + Number(removed ?? 0), 0);
    }
    return dropped + ((await this.inner.forget?.(texts)) ?? 0);
  }

  private digestOf(text: string): Buffer {
    return createHash('sha256').update(this.inner.model).update('\n').update(text).digest();
  }

  /** The Redis key of a digest's slot. */
  private slotKey(digest: Buffer): string {
    return `${this.prefix}${digest.readUInt32BE(0) % this.slots}`;
  }

  private async fillFromRedis(
    digests: Buffer[],
    keys: string[],
    missing: number[],
    out: Array<Float32Array | undefined>,
    lookup: CacheLookup,
  ): Promise<number[]> {
    const redis = this.options.redis as Redis;
    let stored: Array<Buffer | null>;
    try {
      stored = await redis.mgetBuffer(...missing.map((i) => this.slotKey(digests[i] as Buffer)));
    } catch (error) {
      this.options.onCacheError?.(error);
      return missing;
    }
    const stillMissing: number[] = [];
    missing.forEach((i, j) => {
      const bytes = stored[j];
      const digest = digests[i] as Buffer;
      if (
        bytes &&
        bytes.byteLength === DIGEST_BYTES + this.inner.dimension * 4 &&
        bytes.subarray(0, DIGEST_BYTES).equals(digest)
      ) {
        const vector = fromLittleEndianBytes(bytes.subarray(DIGEST_BYTES));
        out[i] = vector;
        this.lru?.set(keys[i] as string, vector.slice());
        lookup.redisHits++;
      } else stillMissing.push(i);
    });
    return stillMissing;
  }

  private async storeInRedis(entries: Array<[Buffer, Float32Array]>): Promise<void> {
    const redis = this.options.redis as Redis;
    if (!(await this.redisHasRoom(redis))) return;
    const pipeline = redis.pipeline();
    for (const [digest, vector] of entries) {
      const bytes = Buffer.concat([digest, toLittleEndianBytes(vector)]);
      const key = this.slotKey(digest);
      if (this.options.redisTtlSeconds) pipeline.set(key, bytes, 'EX', this.options.redisTtlSeconds);
      else pipeline.set(key, bytes);
    }
    try {
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (failed) this.options.onCacheError?.(failed[0]);
    } catch (error) {
      this.options.onCacheError?.(error);
    }
  }

  /**
   * False while Redis is above the memory ceiling (`INFO memory`: used_memory / maxmemory), so the
   * cache never takes the last of a `noeviction` Redis from the queue. No maxmemory: always room.
   */
  private async redisHasRoom(redis: Redis): Promise<boolean> {
    const now = Date.now();
    if (now - this.memory.checkedAt < (this.options.redisMemoryCheckMs ?? 5_000)) return this.memory.writable;
    let info: string;
    try {
      info = await redis.info('memory');
    } catch (error) {
      this.options.onCacheError?.(error);
      return false;
    }
    const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
    const max = Number(/^maxmemory:(\d+)/m.exec(info)?.[1]);
    const ceiling = this.options.redisMemoryCeiling ?? 0.8;
    this.memory = { checkedAt: now, writable: !(max > 0) || used < ceiling * max };
    return this.memory.writable;
  }
}
