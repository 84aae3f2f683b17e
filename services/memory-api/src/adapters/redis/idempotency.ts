import { createHash } from 'node:crypto';
import { ConflictError } from '@hindsight/errors';
import type { Redis } from 'ioredis';

export interface StoredReply {
  statusCode: number;
  body: unknown;
}

/**
 * `Idempotency-Key` support: the first reply to a key is stored in Redis (shared
 * by every replica) and replayed for retries with the same body. Reusing a key
 * with another body is a 409.
 */
export class IdempotencyCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async run(tenant: string, key: string, body: unknown, compute: () => Promise<StoredReply>): Promise<StoredReply> {
    const redisKey = `${this.prefix}:idem:${tenant}:${createHash('sha256').update(key).digest('hex')}`;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(body ?? null))
      .digest('hex');
    const cached = await this.redis.get(redisKey);
    if (cached) {
      const stored = JSON.parse(cached) as StoredReply & { fingerprint: string };
      if (stored.fingerprint !== fingerprint) {
        throw new ConflictError('Idempotency-Key was already used with a different request body');
      }
      return { statusCode: stored.statusCode, body: stored.body };
    }
    const reply = await compute();
    if (reply.statusCode < 500) {
      await this.redis.set(redisKey, JSON.stringify({ ...reply, fingerprint }), 'EX', this.ttlSeconds);
    }
    return reply;
  }
}
